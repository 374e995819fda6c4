import { createHmac } from 'node:crypto';
import type { SitePrincipal } from './site-principal';

/** jose is loaded on first use, not with the module: every start and test file loads this module, few sign or check a JWT. */
let joseModule: typeof import('jose') | undefined;
function jose(): typeof import('jose') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (joseModule ??= require('jose') as typeof import('jose'));
}

/**
 * Site API tokens: HS256 JWTs whose payload is the public `SiteAPIToken` (kind `site`, organization,
 * site, siteSection, siteSpace, space, spaces, claims). GitBook's renderer decodes them and keys its
 * cache on them, so a token is deterministic: the same site, site space, audience and UTC day give
 * the same token (`iat` is the start of the UTC day, HS256 signs deterministically).
 */

/** A token of day D stays valid until D+1 00:00 UTC plus this grace, so one issued at 23:59 still works. */
export const SITE_TOKEN_GRACE_SECONDS = 2 * 60 * 60;
const ISSUER_AUDIENCE = 'quire:site';
const DAY = 24 * 60 * 60;

/** What a bearer looks like when it is a JWT (three base64url parts, a JSON header). */
export const looksLikeJwt = (secret: string) => /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]+$/.test(secret);

export interface SiteTokenInput extends Omit<SitePrincipal, 'spaces'> {
  spaces: string[];
}

/** The purpose-bound HS256 key: HMAC of the server's signing secret, so no other token of Quire's verifies here. */
export function siteTokenKey(secret: string): Uint8Array {
  return createHmac('sha256', secret).update('quire site API tokens v1').digest();
}

export async function signSiteToken(input: SiteTokenInput, key: Uint8Array, now = Date.now()): Promise<string> {
  const day = Math.floor(now / 1000 / DAY) * DAY;
  const payload: Record<string, unknown> = {
    kind: 'site',
    organization: input.organizationId,
    site: input.siteId,
    ...(input.siteSectionId ? { siteSection: input.siteSectionId } : {}),
    siteSpace: input.siteSpaceId,
    space: input.spaceId,
    spaces: [...input.spaces].sort(),
    claims: canonical(input.claims),
    draft: input.changeRequestId !== undefined,
    ...(input.changeRequestId ? { changeRequest: input.changeRequestId } : {}),
  };
  return new (jose().SignJWT)(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER_AUDIENCE)
    .setAudience(ISSUER_AUDIENCE)
    .setIssuedAt(day)
    .setExpirationTime(day + DAY + SITE_TOKEN_GRACE_SECONDS)
    .sign(key);
}

/** The principal of a valid site token, or null (bad signature, another algorithm, expired, not a site token). */
export async function verifySiteToken(token: string, key: Uint8Array): Promise<SitePrincipal | null> {
  try {
    const { payload } = await jose().jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER_AUDIENCE, audience: ISSUER_AUDIENCE });
    if (payload.kind !== 'site' || typeof payload.site !== 'string' || typeof payload.organization !== 'string') return null;
    if (typeof payload.siteSpace !== 'string' || typeof payload.space !== 'string' || !Array.isArray(payload.spaces)) return null;
    return {
      organizationId: payload.organization,
      siteId: payload.site,
      siteSectionId: typeof payload.siteSection === 'string' ? payload.siteSection : undefined,
      siteSpaceId: payload.siteSpace,
      spaceId: payload.space,
      spaces: payload.spaces.filter((id): id is string => typeof id === 'string'),
      claims: (payload.claims && typeof payload.claims === 'object' ? payload.claims : {}) as Record<string, unknown>,
      changeRequestId: typeof payload.changeRequest === 'string' ? payload.changeRequest : undefined,
    };
  } catch {
    return null;
  }
}

/** Keys sorted at every level, so equal claims give byte-equal tokens. */
export function canonical<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonical) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  ) as T;
}
