import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { IntegrationTokensRepository } from './integration-tokens.repository';

/** Script tokens live this long: one call, plus what the script's `waitUntil` work may need. */
export const SCRIPT_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Prefix of script tokens, so the authenticator tells them from user tokens without a lookup in both tables. */
export const SCRIPT_TOKEN_PREFIX = 'qit_';

export const hashScriptToken = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Mints the short-lived tokens a script call carries (`apiTokens.integration`, `apiTokens.installation`). */
@Injectable()
export class IntegrationTokensService {
  constructor(private readonly tokens: IntegrationTokensRepository) {}

  /** `count` tokens for one call, stored in one statement (`IntegrationTokensRepository.insert`). */
  async mint(integrationId: string, installationId: string | null, count = 1): Promise<string[]> {
    const secrets = Array.from({ length: count }, () => `${SCRIPT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`);
    await this.tokens.insert(secrets.map(hashScriptToken), integrationId, installationId, new Date(Date.now() + SCRIPT_TOKEN_TTL_MS));
    return secrets;
  }

  /** Removes expired tokens (called now and then by the event job). */
  purgeExpired(): Promise<void> {
    return this.tokens.purgeExpired();
  }
}
