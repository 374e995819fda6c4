import type { Request } from 'express';

/**
 * Whether the request is authenticated by a site API token (a reader's renderer), whose file
 * `downloadURL`s must load in a reader's browser without a token. The site-token principal is set
 * on the request by the bearer guard as `sitePrincipal`, beside `scriptPrincipal`; this is the one
 * place that reads it for content reads.
 */
export function isSiteTokenRead(req: Request): boolean {
  return (req as Request & { sitePrincipal?: unknown }).sitePrincipal != null;
}

/** The visitor's claims a site API token carries (what `if` blocks and visitor expressions read), or undefined for any other caller. */
export function siteTokenClaims(req: Request): Record<string, unknown> | undefined {
  return (req as Request & { sitePrincipal?: { claims?: Record<string, unknown> } }).sitePrincipal?.claims;
}
