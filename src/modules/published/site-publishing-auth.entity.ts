import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { encryptedText } from '../../common/crypto/secret-cipher';

export const VISITOR_AUTH_BACKENDS = ['custom', 'integration'] as const;
export type VisitorAuthBackend = (typeof VISITOR_AUTH_BACKENDS)[number];

/** A site's visitor authentication: the key that signs visitor JWTs (encrypted at rest) and where visitors go. */
@Entity('site_publishing_auth')
export class SitePublishingAuth {
  @PrimaryColumn('text')
  siteId: string;

  /** HS256 key of visitor JWTs; plaintext here, AES-256-GCM ciphertext in the row. */
  @Column('text', { transformer: encryptedText('site_publishing_auth.private_key') })
  privateKey: string;

  @Column('text', { default: 'custom' })
  backend: VisitorAuthBackend;

  @Column('text', { nullable: true })
  fallbackUrl: string | null;

  @Column('text', { nullable: true })
  logoutUrl: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
