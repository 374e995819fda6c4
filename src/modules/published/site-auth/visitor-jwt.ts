/** jose is loaded on first use, not with the module: every start and test file loads this module, few sign or check a JWT. */
let joseModule: typeof import('jose') | undefined;
function jose(): typeof import('jose') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (joseModule ??= require('jose') as typeof import('jose'));
}

/**
 * Visitor JWTs of `visitor-auth` sites: signed by the site's backend with the site's publishing-auth
 * key. Verified with that key, the algorithm pinned to HS256 (an `alg: none` or RS256 token is
 * refused before its signature is looked at), `exp` and `nbf` honoured with this much clock skew
 * allowed between the backend that signed and Quire.
 */
export const VISITOR_JWT_CLOCK_SKEW_SECONDS = 60;

/** Registered JWT claims: not visitor claims, so conditions never see them. */
const REGISTERED = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti']);

/** The visitor's signed claims, or null when the token is not valid for `privateKey` now. */
export async function verifyVisitorJwt(token: string, privateKey: string): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jose().jwtVerify(token, new TextEncoder().encode(privateKey), {
      algorithms: ['HS256'],
      clockTolerance: VISITOR_JWT_CLOCK_SKEW_SECONDS,
    });
    return Object.fromEntries(Object.entries(payload).filter(([name]) => !REGISTERED.has(name)));
  } catch {
    return null;
  }
}
