import type { ScriptAccessDeclaration } from '../../../common/access/script-access';
import type { ScriptPrincipal } from './script-principal';

/** `allow`, or why a script token is refused (403). */
export type ScriptDecision = 'allow' | string;

/** Something a request names, checked against the installation (`ScriptScopeGuard.requireInside`). */
export interface ScriptTarget {
  kind: 'organization' | 'space' | 'site' | 'collection' | 'installation';
  id: string;
}

/**
 * Body fields that name an organization, space, site or collection in this API's DTOs
 * (`organization`: install, transfer of spaces and collections, create in an organization;
 * `space`/`spaceId`/`spaces`: install on a space, site spaces, a new site's spaces, translations,
 * moves; `siteId`/`site`: install on a site; `parent`/`collection`: create and move of spaces and
 * collections, a collection id). They are checked like path parameters, whatever the route.
 */
const BODY_TARGETS: Record<string, ScriptTarget['kind']> = {
  organization: 'organization',
  organizationId: 'organization',
  space: 'space',
  spaceId: 'space',
  site: 'site',
  siteId: 'site',
  parent: 'collection',
  collection: 'collection',
  collectionId: 'collection',
  // Lists of ids: the spaces a new site shows.
  spaces: 'space',
};

export function scriptBodyTargets(body: unknown): ScriptTarget[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.entries(body as Record<string, unknown>).flatMap(([field, value]) => {
    const kind = BODY_TARGETS[field];
    if (!kind) return [];
    const ids = Array.isArray(value) ? value : [value];
    return ids.filter((id): id is string => typeof id === 'string' && id !== '').map((id) => ({ kind, id }));
  });
}

/** The scopes that let a script read a space's metadata (as `getSpaceById` declares). */
const SPACE_READ_SCOPES = ['space:metadata:read', 'space:metadata:write', 'space:content:read', 'space:content:write'];

/** What a script may change on its own installation (`PATCH …/installations/{id}`): never its selections. */
export const SCRIPT_INSTALLATION_FIELDS = ['configuration', 'externalIds'];

/**
 * What a script token may call, from the route's declaration (pure: the guard has already checked
 * that everything the request names is inside the installation). No declaration is `none`.
 */
export function scriptAccessDecision(
  principal: Pick<ScriptPrincipal, 'scopes' | 'spaceSelection'>,
  declaration: ScriptAccessDeclaration | undefined,
  request: { method: string; installationRoute: boolean; body: unknown; expandsSpaces?: boolean },
): ScriptDecision {
  if (!declaration || declaration.script === 'none') return 'the route is not callable with a script token';
  if (declaration.script === 'installation') {
    // `?extended=true` turns space installations into Space objects: a read of the spaces themselves.
    if (request.expandsSpaces && !SPACE_READ_SCOPES.some((scope) => principal.scopes.includes(scope))) {
      return `extended=true shows the spaces, which needs one of the scopes ${SPACE_READ_SCOPES.join(', ')}`;
    }
    if (request.installationRoute && request.method === 'PATCH' && request.body && typeof request.body === 'object') {
      const other = Object.keys(request.body).filter((field) => !SCRIPT_INSTALLATION_FIELDS.includes(field));
      if (other.length > 0) return `a script changes only the configuration and externalIds of its installation, not ${other.join(', ')}`;
    }
    return 'allow';
  }
  if (!declaration.anyOf.some((scope) => principal.scopes.includes(scope))) {
    return `the installation was not granted any of the scopes ${declaration.anyOf.join(', ')}`;
  }
  if (declaration.allSpaces && principal.spaceSelection !== 'all') return 'the installation covers selected spaces, not the organization';
  return 'allow';
}
