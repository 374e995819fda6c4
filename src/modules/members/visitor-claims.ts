import type { MemberRoleOrGuest } from '../../common/roles';

/** jose is loaded on first use, not with the module: every start and test file loads this module, few sign or check a JWT. */
let joseModule: typeof import('jose') | undefined;
function jose(): typeof import('jose') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (joseModule ??= require('jose') as typeof import('jose'));
}

/** How long a visitor-claims token stays valid. */
export const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;

export interface VisitorClaimsInput {
  userId: string;
  organizationId: string;
  role: MemberRoleOrGuest;
  /** Who issues the token (the API's public URL). */
  issuer: string;
  /** Issue time; defaults to now. */
  now?: Date;
}

/**
 * The visitor claims of a member, as an HS256 JWT: `sub` (user id), `organization`, `role`
 * (null for guests), `iss`, `iat` and `exp`. Sites that authenticate visitors trust what it says.
 */
export function signVisitorClaims({ userId, organizationId, role, issuer, now = new Date() }: VisitorClaimsInput, key: Uint8Array): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new (jose().SignJWT)({ organization: organizationId, role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(issuer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + VISITOR_CLAIMS_TTL_SECONDS)
    .sign(key);
}
