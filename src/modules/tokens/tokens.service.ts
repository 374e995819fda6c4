import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { User } from '../users/user.entity';
import { generateTokenSecret, hashTokenSecret } from './token-secret';
import { TokensRepository } from './tokens.repository';

/** `last_used_at` is refreshed at most this often per token, so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

@Injectable()
export class TokensService {
  private readonly logger = new Logger(TokensService.name);

  constructor(private readonly tokens: TokensRepository) {}

  /** Stores a token for `userId` and returns its secret, which is never readable again. */
  async issue(userId: string, options: { label?: string; secret?: string; manager?: EntityManager } = {}): Promise<string> {
    return (await this.issueToken(userId, options)).secret;
  }

  /** `issue`, with the token's id (what the audit log names it by: never its secret). */
  async issueToken(
    userId: string,
    options: { label?: string; secret?: string; manager?: EntityManager } = {},
  ): Promise<{ id: string; label: string | null; secret: string }> {
    const secret = options.secret ?? generateTokenSecret();
    const token = { id: newId(), userId, tokenHash: hashTokenSecret(secret), label: options.label ?? null };
    await this.tokens.insert(token, options.manager);
    return { id: token.id, label: token.label, secret };
  }

  /** Revokes the token whose secret this is, or every token of a user: the tokens revoked (none: no such token). */
  revoke(which: { secret: string } | { userId: string }, manager: EntityManager): Promise<{ id: string; userId: string; label: string | null }[]> {
    return this.tokens.remove('secret' in which ? { tokenHash: hashTokenSecret(which.secret) } : which, manager);
  }

  async exists(secret: string, manager?: EntityManager): Promise<boolean> {
    return this.tokens.existsByHash(hashTokenSecret(secret), manager);
  }

  /**
   * The user a bearer secret belongs to, or undefined for an unknown secret. `hashed`: the secret's
   * SHA-256 when the caller has it already (the rate-limit guard's), so a request hashes its token once.
   * With the `request` of a route under `/v1/orgs/{organizationId}`, the caller's membership there is
   * read in the same round trip and left on `request.membership` for the organization guard.
   */
  async authenticate(secret: string, hashed = hashTokenSecret(secret), request?: Request): Promise<User | undefined> {
    const organizationId = request?.params?.organizationId;
    const owner = await this.tokens.findOwnerByHash(hashed, typeof organizationId === 'string' ? organizationId : undefined);
    if (!owner) return undefined;
    if (request && owner.membership) request.membership = owner.membership;
    const now = new Date();
    if (!owner.lastUsedAt || now.getTime() - owner.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
      // Off the request path: a failed bookkeeping write must not fail the caller's request.
      this.tokens.touch(owner.tokenId, now).catch((error: unknown) => this.logger.warn({ msg: 'could not record token use', err: error }));
    }
    return owner.user;
  }
}
