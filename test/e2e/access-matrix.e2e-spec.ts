import { changedParts, type RowHashes } from '../support/access-checks';
import type { Test } from 'supertest';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../src/common/roles';
import { collectionPermissions, spacePermissions, type CollectionAction, type SpaceAction } from '../../src/modules/access/access.policy';
import { meetsOrgRole } from '../../src/modules/organizations/organization-member.guard';
import { Actor, addMember, createOrganization, OrgFixture } from '../support/builders';
import { declaredRoutes, DeclaredRoute } from '../support/route-declarations';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The cross-organization access matrix, generated from the routes' own declarations
 * (`@SpaceAction`, `@CollectionAction`, `@OrgRole`): a new route is covered without new test code.
 * For every route with a scoped id, on one shared fixture: no token → 401; the admin of another
 * organization → 404; each member whose role is below the declared action (as `access.policy.ts`
 * or the organization role decides) → 403; and none of these requests changes a row of the
 * organization, its spaces or their content.
 */

const ROLES: MemberRoleOrGuest[] = [...MEMBER_ROLES, null];

/** The error envelope with exactly `status` (as `expectErrorEnvelope` checks, without throwing, so every route is reported). */
const isErrorEnvelope = (body: unknown, status: number): boolean => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return !!error && error.code === status && typeof error.message === 'string' && Object.keys(body as object).length === 1;
};

describe('access matrix (generated from the route declarations)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let outsider: Actor;
  let outsiderOrg: OrgFixture;
  let members: Map<MemberRoleOrGuest, Actor>;
  let space: { id: string };
  let collection: { id: string };
  let snapshotSql: string;
  const covered = { organization: 0, space: 0, collection: 0, requests: 0 };

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    outsiderOrg = await createOrganization(t);
    outsider = outsiderOrg.admin;
    members = new Map([['admin', org.admin]]);
    for (const role of ROLES.filter((role) => role !== 'admin')) members.set(role, await addMember(t, org, role));
    collection = await createCollection(t, org);
    space = await createSpace(t, org);
    // Every row of the organization (tables with an organization_id), of the space (space_id) and the organization itself.
    const columns: { table_name: string; column_name: string }[] = await t.dataSource.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name IN ('organization_id', 'space_id') ORDER BY table_name, column_name`,
    );
    const parts = columns.map(
      ({ table_name, column_name }) =>
        `SELECT '${table_name}.${column_name}' AS part, md5(COALESCE(string_agg(t::text, '|' ORDER BY t::text), '')) AS hash
           FROM ${table_name} t WHERE ${column_name} = ${column_name === 'organization_id' ? '$1' : '$2'}`,
    );
    parts.push(`SELECT 'organizations' AS part, md5(COALESCE(string_agg(o::text, '|'), '')) FROM organizations o WHERE o.id = $1`);
    snapshotSql = parts.join('\nUNION ALL\n');
  });
  afterAll(async () => {
    console.info(
      `access matrix: ${covered.organization + covered.space + covered.collection} routes covered ` +
        `(${covered.organization} organization, ${covered.space} space, ${covered.collection} collection), ${covered.requests} refused requests`,
    );
    await t.close();
  });

  /** A hash of every row of the organization and its space, per table and column naming them. */
  const snapshot = async (): Promise<RowHashes> => await t.dataSource.query(snapshotSql, [org.id, space.id]);

  /** A body the route would accept, for routes that write: if a refusal ever let one through, the snapshot would show it. */
  const bodies = (): Record<string, object> => ({
    updateSpaceById: { title: 'Changed by a refused caller' },
    moveSpace: { parent: collection.id },
    transferSpace: { organization: outsiderOrg.id },
    importContentInSpace: { url: 'http://127.0.0.1:9/' },
    exportToGitRepository: { url: '/nowhere/refused', ref: 'refs/heads/main', commitMessage: 'Refused' },
    importGitRepository: { url: '/nowhere/refused', ref: 'refs/heads/main' },
    inviteToSpace: { users: [(members.get('read') as Actor).user.id], role: 'admin' },
    inviteToCollection: { users: [(members.get('read') as Actor).user.id], role: 'admin' },
    updateUserPermissionInSpace: { role: 'admin' },
    updateTeamPermissionInSpace: { role: 'admin' },
    updateUserPermissionInCollection: { role: 'admin' },
    updateTeamPermissionInCollection: { role: 'admin' },
    updateCollectionById: { title: 'Changed by a refused caller' },
    moveCollection: { parent: null },
    transferCollection: { organization: outsiderOrg.id },
    createSpace: { title: 'Created by a refused caller' },
    createCollection: { title: 'Created by a refused caller' },
    updateOrganizationById: { title: 'Changed by a refused caller' },
    updateMemberInOrganizationById: { role: 'admin' },
    createOrganizationTeam: { title: 'Team of a refused caller' },
    updateTeamInOrganizationById: { title: 'Renamed by a refused caller' },
    inviteUsersToOrganization: { emails: ['refused@example.com'], role: 'admin' },
  });

  const urlOf = (route: DeclaredRoute): string =>
    route.path
      .replace(':organizationId', org.id)
      .replace(':spaceId', space.id)
      .replace(':collectionId', collection.id)
      .replace(':userId', (members.get('read') as Actor).user.id)
      .replace(/\*\w+/, 'some/page')
      .replace(/:\w+/g, 'unknown-id');

  const requestOf = (route: DeclaredRoute): (() => Test) => {
    const url = urlOf(route);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const body = bodies()[route.operationId];
    return () => (method === 'get' ? t.http.get(url) : t.http[method](url).send(body ?? {}));
  };

  /** The roles a route refuses with 403, from the same rules the guards apply. */
  const refusedRoles = (route: DeclaredRoute): MemberRoleOrGuest[] => {
    const access = route.access;
    if (!access) return [];
    return ROLES.filter((role) => {
      if (access.scope === 'organization') return !meetsOrgRole({ role }, access.role);
      if (access.scope === 'space') return !spacePermissions(role, { editMode: 'live' })[access.action as SpaceAction];
      return !collectionPermissions(role)[access.action as CollectionAction];
    });
  };

  /**
   * Runs every refusal of every route of `scope`; answers one line per unexpected answer. The organization's rows are
   * compared before and after all of the scope's refusals (any change is caught; the tables that changed are named,
   * and the routes that changed them are found by sending their refusals again, each between two snapshots).
   */
  async function check(scope: DeclaredRoute['scope']): Promise<string[]> {
    const routes = declaredRoutes(t.app).filter((route) => route.scope === scope);
    expect(routes.length).toBeGreaterThan(0);
    const problems: string[] = [];
    const refuse = async (route: DeclaredRoute) => {
      const send = requestOf(route);
      const cases: [string, Actor | null, number][] = [
        ['no token', null, 401],
        ['another organization', outsider, 404],
        ...refusedRoles(route).map((role): [string, Actor, number] => [`role ${role ?? 'guest'}`, members.get(role) as Actor, 403]),
      ];
      for (const [who, caller, status] of cases) {
        const req = send();
        const res = await (caller ? req.set(...caller.auth) : req);
        covered.requests++;
        if (res.status !== status || !isErrorEnvelope(res.body, status)) {
          problems.push(
            `${route.method} ${route.path} (${route.operationId}), ${who}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
          );
        }
      }
    };
    const before = await snapshot();
    for (const route of routes) {
      covered[scope as keyof typeof covered]++;
      await refuse(route);
    }
    const changed = changedParts(before, await snapshot());
    if (changed.length) {
      problems.push(`${scope} routes: refused requests changed rows of ${changed.join(', ')}`);
      for (const route of routes) {
        const again = await snapshot();
        await refuse(route);
        if (changedParts(again, await snapshot()).length) problems.push(`${route.method} ${route.path} (${route.operationId}): a refused request changed rows`);
      }
    }
    return problems;
  }

  it('organization routes: 401 without a token, 404 from another organization, 403 below the declared role, nothing written', async () => {
    expect(await check('organization')).toEqual([]);
  }, 60_000);

  it('space routes: 401 without a token, 404 from another organization, 403 below the declared action, nothing written', async () => {
    expect(await check('space')).toEqual([]);
  }, 60_000);

  it('collection routes: 401 without a token, 404 from another organization, 403 below the declared action, nothing written', async () => {
    expect(await check('collection')).toEqual([]);
  }, 60_000);
});
