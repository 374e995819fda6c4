import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IntegrationToken } from './integration-token.entity';

/** Script tokens live this long: one call, plus what the script's `waitUntil` work may need. */
export const SCRIPT_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Prefix of script tokens, so the authenticator tells them from user tokens without a lookup in both tables. */
export const SCRIPT_TOKEN_PREFIX = 'qit_';

export const hashScriptToken = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Mints the short-lived tokens a script call carries (`apiTokens.integration`, `apiTokens.installation`). */
@Injectable()
export class IntegrationTokensService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async mint(integrationId: string, installationId: string | null): Promise<string> {
    const secret = `${SCRIPT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await this.dataSource
      .getRepository(IntegrationToken)
      .insert({ tokenHash: hashScriptToken(secret), integrationId, installationId, expiresAt: new Date(Date.now() + SCRIPT_TOKEN_TTL_MS) });
    return secret;
  }

  /** Removes expired tokens (called now and then by the event job; cheap with the expiry index). */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM integration_tokens WHERE expires_at < now()`);
  }
}
