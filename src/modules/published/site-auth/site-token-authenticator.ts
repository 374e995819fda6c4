import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { Authenticator } from '../../../common/auth/authenticator';
import { ScriptTokenAuthenticator } from '../../integrations/script-auth/script-authenticator';
import type { User } from '../../users/user.entity';
import { looksLikeJwt, verifySiteToken } from './site-token';
import { SiteTokenKeys } from './site-token-keys';

/**
 * The bearer authenticator: a JWT is a site API token (verified with the site-token key; its principal
 * goes on the request for the site-token guard); anything else goes to the script and user tokens'
 * authenticator unchanged. A site token speaks for no user: the request's `user` is a stand-in
 * reader (`site:<siteId>`), member of nothing, so nothing a user could do opens through it; the guard
 * hands the routes a site token may call the read-only access they need.
 */
@Injectable()
export class SiteTokenAuthenticator implements Authenticator {
  constructor(
    private readonly others: ScriptTokenAuthenticator,
    private readonly keys: SiteTokenKeys,
  ) {}

  async authenticate(secret: string, request?: Request): Promise<User | undefined> {
    if (!looksLikeJwt(secret)) return this.others.authenticate(secret, request);
    const principal = await verifySiteToken(secret, await this.keys.get());
    if (!principal) return undefined;
    if (request) request.sitePrincipal = principal;
    const epoch = new Date(0);
    return { id: `site:${principal.siteId}`, displayName: 'Site reader', email: '', photoUrl: null, createdAt: epoch, updatedAt: epoch } as User;
  }
}
