import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('users')
export class User {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  displayName: string;

  /** Stored as given; uniqueness is case-insensitive (index on lower(email)). */
  @Column('text')
  email: string;

  @Column('text', { nullable: true })
  photoUrl: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
