import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { Membership } from '../organizations/membership.entity';
import { ServerSecretsRepository } from './server-secrets.repository';
import { signVisitorClaims } from './visitor-claims';

/** Name of the generated key in `server_secrets`, used when SIGNING_SECRET is unset. */
export const VISITOR_CLAIMS_SECRET = 'visitor-claims-signing-key';

@Injectable()
export class VisitorClaimsService {
  private key?: Promise<Uint8Array>;

  constructor(
    private readonly config: AppConfig,
    private readonly secrets: ServerSecretsRepository,
  ) {}

  async sign(membership: Pick<Membership, 'userId' | 'organizationId' | 'role'>): Promise<string> {
    return signVisitorClaims({ ...membership, issuer: this.config.publicUrl }, await this.signingKey());
  }

  /**
   * SIGNING_SECRET when configured; otherwise a key generated once and kept in the database, so the
   * server works out of the box and every replica signs with the same key. Read once per process.
   */
  private signingKey(): Promise<Uint8Array> {
    this.key ??= (async () => {
      const secret = this.config.signingSecret ?? (await this.secrets.getOrCreate(VISITOR_CLAIMS_SECRET, () => randomBytes(32).toString('base64url')));
      return new TextEncoder().encode(secret);
    })().catch((error: unknown) => {
      // A failed read (database down) must not be cached: the next request tries again.
      this.key = undefined;
      throw error;
    });
    return this.key;
  }
}
