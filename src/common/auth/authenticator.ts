import type { Request } from 'express';

/**
 * Finds who a bearer secret belongs to. The tokens module provides it under AUTHENTICATOR, so the
 * global guard (here, in `common/`) does not import a domain module.
 */
export interface Authenticator {
  /** `request` lets an authenticator record a narrower principal (an integration script's scopes) beside the user. */
  authenticate(secret: string, request?: Request): Promise<Request['user']>;
}

export const AUTHENTICATOR = Symbol('Authenticator');
