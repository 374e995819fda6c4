import type { ScriptPrincipal } from './script-principal';

export type ScopeDecision = 'allow' | 'forbidden';

/**
 * What a script token may call, by route family and method (pure: the guard supplies the facts).
 * Reads of a space need a `space:*:read` (or write) scope, writes a `space:*:write`; sites the same
 * with `site:*`; the installation's organization may be read with any scope and never written;
 * the integration's own routes are open to it; everything else (the user's other organizations,
 * `/v1/user`, other integrations) is beyond a script's scope.
 */
export function scriptScopeDecision(
  principal: ScriptPrincipal,
  route: { family: 'space' | 'site' | 'organization' | 'own-integration' | 'other'; write: boolean },
): ScopeDecision {
  const has = (prefix: string, write: boolean) =>
    principal.scopes.some((scope) => scope.startsWith(prefix) && (write ? scope.endsWith(':write') || scope.endsWith(':inject') : true));
  switch (route.family) {
    case 'own-integration':
      return 'allow';
    case 'space':
      return has('space:', route.write) ? 'allow' : 'forbidden';
    case 'site':
      return has('site:', route.write) ? 'allow' : 'forbidden';
    case 'organization':
      return route.write ? 'forbidden' : 'allow';
    default:
      return 'forbidden';
  }
}
