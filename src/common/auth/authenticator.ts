import type { Request } from 'express';

/**
 * Finds who a bearer secret belongs to. The tokens module provides it under AUTHENTICATOR, so the
 * global guard (here, in `common/`) does not import a domain module.
 */
export interface Authenticator {
  authenticate(secret: string): Promise<Request['user']>;
}

export const AUTHENTICATOR = Symbol('Authenticator');
