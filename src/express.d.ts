import type { ScriptPrincipal } from './modules/integrations/script-auth/script-principal';
import type { SitePrincipal } from './modules/published/site-auth/site-principal';
import type { Membership } from './modules/organizations/membership.entity';
import type { User } from './modules/users/user.entity';

/*
 * What a request carries once the pipeline has run. Declared here, at the top of the application,
 * because its types come from domain modules: `common/` reads them as `Request['user']` and so
 * imports no module.
 */

declare global {
  namespace Express {
    interface Request {
      /** Set by the request logging middleware: the request id echoed in X-Request-Id. */
      id: string | number | object;
      /** Set by BearerTokenGuard. */
      user?: User;
      /** Set by OrganizationMemberGuard on routes under /v1/orgs/{organizationId}. */
      membership?: Membership;
      /** Set by the script authenticator when the token is an integration script's (scopes and reach). */
      scriptPrincipal?: ScriptPrincipal;
      /** Set by the site-token authenticator when the token is a site API token (one site's published content, one audience). */
      sitePrincipal?: SitePrincipal;
      /** Set by the rate-limit guard: SHA-256 (hex) of the bearer secret, so the authenticator need not hash it again. */
      bearerTokenHash?: string;
      /** Set by the rate-limit guard when the address is locked out for failed authentications: seconds left. */
      authLockout?: number;
    }
  }
}

export {};
