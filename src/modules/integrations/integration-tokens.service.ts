import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/** Script tokens live this long: one call, plus what the script's `waitUntil` work may need. */
export const SCRIPT_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Prefix of script tokens, so the authenticator tells them from user tokens without a lookup in both tables. */
export const SCRIPT_TOKEN_PREFIX = 'qit_';

export const hashScriptToken = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Mints the short-lived tokens a script call carries (`apiTokens.integration`, `apiTokens.installation`). */
@Injectable()
export class IntegrationTokensService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * `count` tokens for one call, in one statement. The commit does not wait for the WAL flush
   * (`synchronous_commit off`): a token lost in a crash only fails the call that held it.
   */
  async mint(integrationId: string, installationId: string | null, count = 1): Promise<string[]> {
    const secrets = Array.from({ length: count }, () => `${SCRIPT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`);
    const expiresAt = new Date(Date.now() + SCRIPT_TOKEN_TTL_MS);
    await this.dataSource.transaction(async (em) => {
      await em.query(`SET LOCAL synchronous_commit TO OFF`);
      await em.query(`INSERT INTO integration_tokens (token_hash, integration_id, installation_id, expires_at) SELECT unnest($1::text[]), $2, $3, $4`, [
        secrets.map(hashScriptToken),
        integrationId,
        installationId,
        expiresAt,
      ]);
    });
    return secrets;
  }

  /** Removes expired tokens (called now and then by the event job; cheap with the expiry index). */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM integration_tokens WHERE expires_at < now()`);
  }
}
