import { changedParts, type RowHashes } from '../support/access-checks';
import { readFileSync } from 'node:fs';
import type { Response } from 'supertest';
import { INTEGRATION_SCOPES, type IntegrationScope } from '../../src/common/access/script-access';
import { IntegrationTokensService } from '../../src/modules/integrations/integration-tokens.service';
import { createOrganization, OrgFixture } from '../support/builders';
import { publishScript } from '../support/integration-fixtures';
import { declaredRoutes, DeclaredRoute } from '../support/route-declarations';
import { createSite } from '../support/site-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The script-token matrix, generated from the route table: every route, called with a script
 * token with no scopes, with each scope alone, from an installation on selected spaces, and from
 * an installation of another organization. The expected answers come from the **public**
 * description (`@gitbook/api`: the operations whose `security` names `integration` or
 * `integration-installation`, and the OAuth scope each one names), mapped to the public
 * `IntegrationScope` values below, not from the guard's declarations; refused requests change no
 * row of the organization, its spaces or its sites.
 */

type Case = { name: string; scopes: IntegrationScope[]; selected: boolean; foreign: boolean };

interface PublicOperation {
  security?: Record<string, string[]>[];
}

const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, PublicOperation & { operationId?: string }>>;
};

/** The public operations a script token may call, with the OAuth scope each names (`undefined`: none). */
const PUBLIC_SCRIPT_OPERATIONS = new Map<string, { path: string; oauth: string | undefined }>();
for (const [path, operations] of Object.entries(spec.paths)) {
  for (const operation of Object.values(operations)) {
    const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
    if (!operation.operationId || !schemes.some((scheme) => scheme === 'integration' || scheme === 'integration-installation')) continue;
    const oauth = (operation.security ?? []).find((entry) => entry.oauth)?.oauth[0];
    PUBLIC_SCRIPT_OPERATIONS.set(operation.operationId, { path, oauth });
  }
}

/**
 * Quire's one narrowing of the public list (docs/modules/integrations.md): installing on a space or
 * a site widens the installation's selection, the installer's decision, never the script's.
 */
const SELECTION_DECISIONS = new Set(['installIntegrationOnSpace', 'installIntegrationOnSite']);

const SPACE_CONTENT: IntegrationScope[] = ['space:content:read', 'space:content:write'];
const SPACE_METADATA: IntegrationScope[] = ['space:metadata:read', 'space:metadata:write'];

/**
 * The integration scopes that stand for a public OAuth scope on an operation (a write scope also
 * reads): `null` for the integration's own installation (no scope: a script always reads and
 * configures its installation). `allSpaces`: a list of every space of the organization.
 */
function requiredScopes(operationId: string): { anyOf: IntegrationScope[] | null; allSpaces?: boolean } {
  const { path, oauth } = PUBLIC_SCRIPT_OPERATIONS.get(operationId)!;
  if (oauth === undefined || oauth.startsWith('integration:installations:')) return { anyOf: null };
  if (oauth === 'space:read' && path.startsWith('/orgs/')) return { anyOf: SPACE_METADATA, allSpaces: true };
  if (oauth === 'space:read' && /\/(content|revisions)/.test(path)) return { anyOf: SPACE_CONTENT };
  if (oauth === 'space:read') return { anyOf: [...SPACE_METADATA, ...SPACE_CONTENT] };
  // Git Sync writes content: the public list names `space:write`, integrations grant `space:git:sync`.
  if (oauth === 'space:write' && path.includes('/git/')) return { anyOf: ['space:git:sync'] };
  // The site operations a script may call are the adaptive schema's.
  if (oauth === 'site:read' && path.includes('/adaptive-schema')) return { anyOf: ['site:adaptive:read', 'site:adaptive:write'] };
  if (oauth === 'site:write' && path.includes('/adaptive-schema')) return { anyOf: ['site:adaptive:write'] };
  throw new Error(`${operationId}: the public scope ${oauth} is not mapped to integration scopes yet`);
}

const SCOPED = [':organizationId', ':spaceId', ':siteId', ':collectionId', ':installationId'];

/** Routes whose test body (below) names an organization, space, site or collection of the organization. */
const BODY_NAMES = new Set(['moveSpace', 'transferSpace', 'installIntegration', 'installIntegrationOnSpace', 'installIntegrationOnSite']);

/** What a script token of `kase` gets on `route`: `allowed`, or the refusal status. */
function expected(route: DeclaredRoute, kase: Case): 'allowed' | 403 | 404 {
  const names = [...SCOPED.filter((param) => route.path.includes(param)), ...(BODY_NAMES.has(route.operationId) ? ['body'] : [])];
  // Another organization's token: anything this organization's route names is unknown to it.
  if (kase.foreign && names.length > 0) return 404;
  // The installation on selected spaces is called on a space it does not cover.
  if (kase.selected && route.path.includes(':spaceId')) return 404;
  const operation = PUBLIC_SCRIPT_OPERATIONS.get(route.operationId);
  if (!operation || SELECTION_DECISIONS.has(route.operationId)) return 403;
  const need = requiredScopes(route.operationId);
  if (need.anyOf && !need.anyOf.some((scope) => kase.scopes.includes(scope))) return 403;
  if (need.allSpaces && kase.selected) return 403;
  return 'allowed';
}

const CASES: Case[] = [
  { name: 'no scopes', scopes: [], selected: false, foreign: false },
  ...INTEGRATION_SCOPES.map((scope) => ({ name: scope, scopes: [scope], selected: false, foreign: false })),
  { name: 'selected spaces, every scope', scopes: [...INTEGRATION_SCOPES], selected: true, foreign: false },
  { name: 'another organization, every scope', scopes: [...INTEGRATION_SCOPES], selected: false, foreign: true },
];

describe('script-token matrix (every route, generated from the route table and the public security lists)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let other: OrgFixture;
  let installationId: string;
  let foreignInstallationId: string;
  let token: string;
  let foreignToken: string;
  let covered: { id: string; revisionId: string };
  let uncovered: { id: string };
  let collection: { id: string };
  let site: { id: string };
  let snapshotSql: string;
  const name = 'matrix-probe';
  const counts = { routes: 0, requests: 0, allowed: 0 };

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    // The same admin administers the other organization: its token must still not reach this one.
    other = await createOrganization(t, { admin: org.admin });
    covered = await createSpace(t, org);
    uncovered = await createSpace(t, org);
    collection = await createCollection(t, org);
    site = await createSite(t, org);
    await publishScript(t, org.admin, org.id, name, 'export default { fetch() { return new Response("OK"); } };', { scopes: [...INTEGRATION_SCOPES] });
    const install = async (organization: string) =>
      (
        await t.http
          .post(`/v1/integrations/${name}/installations`)
          .set(...org.admin.auth)
          .send({ organization })
          .expect(201)
      ).body.id as string;
    installationId = await install(org.id);
    foreignInstallationId = await install(other.id);
    const base = `/v1/integrations/${name}/installations/${installationId}`;
    await t.http
      .post(`${base}/spaces`)
      .set(...org.admin.auth)
      .send({ space: covered.id })
      .expect(201);
    await t.http
      .post(`${base}/sites`)
      .set(...org.admin.auth)
      .send({ siteId: site.id })
      .expect(201);
    const [{ id: integrationId }] = await t.dataSource.query(`SELECT id FROM integrations WHERE name = $1`, [name]);
    const tokens = t.app.get(IntegrationTokensService);
    [token] = await tokens.mint(integrationId, installationId);
    [foreignToken] = await tokens.mint(integrationId, foreignInstallationId);
    await t.dataSource.query(`UPDATE integration_installations SET space_selection = 'all', site_selection = 'all' WHERE id = $1`, [foreignInstallationId]);
    await arrange(CASES[0]);
    const columns: { table_name: string; column_name: string }[] = await t.dataSource.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name IN ('organization_id', 'space_id', 'site_id') ORDER BY table_name, column_name`,
    );
    const parts = columns.map(
      ({ table_name, column_name }) =>
        `SELECT '${table_name}.${column_name}' AS part, md5(COALESCE(string_agg(t::text, '|' ORDER BY t::text), '')) AS hash
           FROM ${table_name} t WHERE ${column_name} = ANY($1::text[])`,
    );
    snapshotSql = parts.join('\nUNION ALL\n');
  }, 60_000);

  afterAll(async () => {
    console.info(`script-token matrix: ${counts.routes} routes, ${counts.requests} requests (${counts.allowed} allowed)`);
    await t?.close();
  });

  /** A hash of every row of the organization, its spaces and its site, per table and column naming them. */
  const snapshot = async (): Promise<RowHashes> => await t.dataSource.query(snapshotSql, [[org.id, covered.id, uncovered.id, site.id]]);

  /** The installation as the case needs it (granted scopes, selections); the token reads it on each request. */
  let arranged: Case | undefined;
  const arrange = async (kase: Case) => {
    if (kase === arranged) return;
    arranged = kase;
    await t.dataSource.query(`UPDATE integration_installations SET granted_scopes = $2, space_selection = $3, site_selection = $3 WHERE id = $1`, [
      installationId,
      JSON.stringify(kase.scopes),
      kase.selected ? 'selected' : 'all',
    ]);
  };

  /** Bodies the route would accept, naming only this organization's own things (the escapes file names others). */
  const bodies = (): Record<string, object> => ({
    updateSpaceById: { title: 'Changed by a script' },
    moveSpace: { parent: collection.id },
    transferSpace: { organization: org.id },
    updateCollectionById: { title: 'Changed by a script' },
    createSpace: { title: 'Created by a script' },
    updateOrganizationById: { title: 'Changed by a script' },
    installIntegration: { organization: org.id },
    installIntegrationOnSpace: { space: covered.id },
    installIntegrationOnSite: { siteId: site.id },
    updateIntegrationInstallation: { configuration: {} },
    updateIntegrationSpaceInstallation: { configuration: {} },
    updateIntegrationSiteInstallation: { configuration: {} },
  });

  const urlOf = (route: DeclaredRoute, kase: Case): string =>
    route.path
      .replace(':organizationId', org.id)
      .replace(':spaceId', kase.selected ? uncovered.id : covered.id)
      .replace(':siteId', site.id)
      .replace(':collectionId', collection.id)
      .replace(':installationId', installationId)
      .replace(':integrationName', name)
      .replace(':revisionId', covered.revisionId)
      .replace(/\*\w+/, 'some/page')
      .replace(/:\w+/g, 'unknown-id');

  const send = (route: DeclaredRoute, kase: Case, auth: string): Promise<Response> => {
    const url = urlOf(route, kase);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const req = method === 'get' ? t.http.get(url) : t.http[method](url).send(bodies()[route.operationId] ?? {});
    counts.requests++;
    return req.set('Authorization', `Bearer ${auth}`);
  };

  const envelope = (res: Response, status: number) => res.status === status && res.body?.error?.code === status && Object.keys(res.body).length === 1;

  it('every route declares what a script token may call (x-quire-script), and the committed document says the same', () => {
    const routes = declaredRoutes(t.app);
    expect(routes.length).toBeGreaterThan(150);
    expect(routes.filter((route) => !route.script).map((route) => `${route.method} ${route.path} (${route.operationId})`)).toEqual([]);
    const committed = JSON.parse(readFileSync('openapi/quire.json', 'utf8')) as { paths: Record<string, Record<string, { 'x-quire-script'?: unknown }>> };
    const undeclared = Object.entries(committed.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op['x-quire-script'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('each route answers each script token as the public description and its scopes say; refused requests change nothing', async () => {
    const routes = declaredRoutes(t.app).filter((route) => !route.isPublic);
    counts.routes = routes.length;
    const problems: string[] = [];
    // Refused: one case at a time over every route, the installation arranged once for the case and the
    // organization's rows compared before and after all of the case's refused requests (any change is caught; the
    // tables that changed are named, and the routes that changed them are found by sending each again).
    for (const kase of CASES) {
      await arrange(kase);
      const refused = routes.flatMap((route) => {
        const status = expected(route, kase);
        return status === 'allowed' ? [] : [{ route, status }];
      });
      const before = await snapshot();
      for (const { route, status } of refused) {
        const res = await send(route, kase, kase.foreign ? foreignToken : token);
        if (!envelope(res, status)) {
          problems.push(
            `${route.method} ${route.path} (${route.operationId}), ${kase.name}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
          );
        }
      }
      const changed = changedParts(before, await snapshot());
      if (changed.length) {
        problems.push(`${kase.name}: refused requests changed rows of ${changed.join(', ')}`);
        for (const { route } of refused) {
          const again = await snapshot();
          await send(route, kase, kase.foreign ? foreignToken : token);
          if (changedParts(again, await snapshot()).length)
            problems.push(`${route.method} ${route.path} (${route.operationId}), ${kase.name}: a refused request changed rows`);
        }
      }
    }
    // Allowed: the script gets what its installer would get on a read, and no refusal on a write.
    for (const route of routes) {
      const allowed = CASES.filter((kase) => expected(route, kase) === 'allowed');
      const installer = route.method === 'GET' && allowed.length ? (await send(route, CASES[0], org.admin.token)).status : undefined;
      for (const kase of allowed) {
        counts.allowed++;
        await arrange(kase);
        const res = await send(route, kase, kase.foreign ? foreignToken : token);
        const ok = installer !== undefined ? res.status === installer : ![401, 403, 404].includes(res.status);
        if (!ok)
          problems.push(
            `${route.method} ${route.path} (${route.operationId}), ${kase.name}: allowed, got ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
          );
      }
    }
    // Every public script operation Quire serves was reached by at least one allowed case.
    const served = new Set(routes.map((route) => route.operationId));
    const reachable = [...PUBLIC_SCRIPT_OPERATIONS.keys()].filter((id) => served.has(id) && !SELECTION_DECISIONS.has(id));
    expect(reachable.length).toBeGreaterThanOrEqual(18);
    expect(problems).toEqual([]);
  }, 600_000);
});
