import { declareOnRoutes } from './route-declaration';

/**
 * What an integration's script token may call, declared on each route and written into the OpenAPI
 * document as the `x-quire-script` extension of each operation. The script-scope guard
 * (`modules/integrations/script-auth`) reads it: a route without a declaration answers 403 to a
 * script token (deny by default), and a test fails on any route that declares nothing.
 */
export const SCRIPT_ACCESS_EXTENSION = 'x-quire-script';
export const SCRIPT_ACCESS = 'quire:script-access';

/** The public description's `IntegrationScope` values. */
export const INTEGRATION_SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
] as const;
export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];

/**
 * - `none`: never callable with a script token (403), whatever its installer could do.
 * - `installation`: the integration's own installation routes (`{integrationName}` = the script's
 *   integration, `{installationId}` = its installation, `{spaceId}`/`{siteId}` covered by it); no
 *   scope needed: a script always reads and configures its own installation.
 * - `scope`: needs one of `anyOf` among the installation's granted scopes; the route's organization,
 *   space or site (path or body) must be the installation's own or covered by it. `allSpaces`: an
 *   organization-wide list of spaces, which an installation on selected spaces may not read (403).
 */
export type ScriptAccessDeclaration = { script: 'none' } | { script: 'installation' } | { script: 'scope'; anyOf: IntegrationScope[]; allSpaces?: true };

const declare = (declaration: ScriptAccessDeclaration) => declareOnRoutes(SCRIPT_ACCESS, SCRIPT_ACCESS_EXTENSION, declaration);

/** Never callable with a script token (on a route, or on a controller for its routes that declare nothing). */
export const NotForScripts = (): MethodDecorator & ClassDecorator => declare({ script: 'none' });

/** The integration's own installation (and its space and site installations): callable without a scope. */
export const ScriptInstallationRoute = (): MethodDecorator & ClassDecorator => declare({ script: 'installation' });

/** Callable with any one of these scopes, inside the installation's organization, spaces and sites. */
export const ScriptScope = (...anyOf: IntegrationScope[]): MethodDecorator & ClassDecorator => declare({ script: 'scope', anyOf });

/** As `@ScriptScope`, for a list of every space of the organization: the installation must cover them all (`space_selection: all`). */
export const ScriptScopeOnAllSpaces = (...anyOf: IntegrationScope[]): MethodDecorator & ClassDecorator => declare({ script: 'scope', anyOf, allSpaces: true });
