import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A docs site (section 2.8): how content reaches readers. */
@Entity('sites')
export class Site {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
