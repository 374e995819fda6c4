import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An API token. Only the SHA-256 of the secret is kept; the secret is shown once, at creation. */
@Entity('api_tokens')
export class ApiToken {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  userId: string;

  @Column('text', { unique: true })
  tokenHash: string;

  @Column('text', { nullable: true })
  label: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastUsedAt: Date | null;
}
