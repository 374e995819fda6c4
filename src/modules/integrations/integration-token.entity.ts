import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A short-lived token handed to a script call (only its SHA-256 is stored). */
@Entity('integration_tokens')
export class IntegrationToken {
  @PrimaryColumn('text')
  tokenHash: string;

  @Column('text')
  integrationId: string;

  @Column('text', { nullable: true })
  installationId: string | null;

  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;
}
