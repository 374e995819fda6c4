import 'reflect-metadata';
import { X509CertificateGenerator } from '@peculiar/x509';
import type { MemberRole } from '../../src/common/roles';
import { GrantsService } from '../../src/modules/access/grants.service';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { TeamMembersService } from '../../src/modules/teams/team-members.service';
import type { TeamMemberRole } from '../../src/modules/teams/team-member.entity';
import { TeamsService } from '../../src/modules/teams/teams.service';
import { Actor, membershipOf, OrgFixture, unique } from './builders';
import { expectErrorEnvelope } from './contract';
import { createSpace as createSpaceThroughService } from './space-builders';
import type { TestApp } from './test-app';

/** Builders for organization administration: teams through the teams services, as the org's admin. */
const adminMembership = (t: TestApp, org: OrgFixture) => membershipOf(t, org, org.admin);

export interface TeamFixture {
  id: string;
  title: string;
}

/** A team of `org`, with `members` (as `member`) and `owners` (as `owner`). */
export async function createTeam(t: TestApp, org: OrgFixture, overrides: { title?: string; members?: Actor[]; owners?: Actor[] } = {}): Promise<TeamFixture> {
  const admin = await adminMembership(t, org);
  const { team } = await t.app.get(TeamsService).create(admin, {
    title: overrides.title ?? unique('Team'),
    members: (overrides.members ?? []).map((actor) => actor.user.id),
  });
  for (const owner of overrides.owners ?? []) await addToTeam(t, org, team.id, owner, 'owner');
  return { id: team.id, title: team.title };
}

export async function addToTeam(t: TestApp, org: OrgFixture, teamId: string, actor: Actor, role: TeamMemberRole = 'member'): Promise<void> {
  await t.app.get(TeamMembersService).set(await adminMembership(t, org), teamId, actor.user.id, role);
}

/** A space of `org` through the spaces service; `deleted` soft-deletes it. */
export async function createSpace(t: TestApp, org: OrgFixture, overrides: { deleted?: boolean } = {}): Promise<string> {
  const { id } = await createSpaceThroughService(t, org, { title: 'Space' });
  if (overrides.deleted) await t.app.get(SpacesService).delete(org.admin.user, id);
  return id;
}

/** An explicit grant on a space, to a user or to a team, through the grants service. */
export async function grantSpace(
  t: TestApp,
  org: OrgFixture,
  spaceId: string,
  to: { userId: string } | { teamId: string },
  role: MemberRole = 'read',
): Promise<void> {
  const invitees = 'userId' in to ? { users: [to.userId] } : { teams: [to.teamId] };
  await t.app.get(GrantsService).invite({ kind: 'space', id: spaceId, organizationId: org.id }, { role, ...invitees });
}

/** Drives a member's last-seen time directly, so sort tests do not depend on the clock. */
export async function setLastSeen(t: TestApp, org: OrgFixture, actor: Actor, at: Date | null): Promise<void> {
  await t.dataSource.getRepository(Membership).update({ organizationId: org.id, userId: actor.user.id }, { lastSeenAt: at });
}

/** Follows `next.page` to the end of a list; answers every item id in order, the pages and the first page's count. */
export async function walkList(
  t: TestApp,
  path: string,
  actor: Actor,
  query: Record<string, string | number>,
  check?: (res: any) => void,
): Promise<{ ids: string[]; pages: number; count: number }> {
  const ids: string[] = [];
  let page: string | undefined;
  let pages = 0;
  let count = -1;
  do {
    const res = await t.http
      .get(path)
      .query({ ...query, ...(page ? { page } : {}) })
      .set(...actor.auth);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    check?.(res);
    if (count === -1) count = res.body.count;
    ids.push(...res.body.items.map((item: any) => item.id ?? item.team?.id ?? item.organization?.id));
    page = res.body.next?.page;
    pages++;
  } while (page);
  return { ids, pages, count };
}

/** A list at `path` accepts limit=1000 and refuses limit=1001 with 400 naming `limit`. */
export async function expectLimitUpTo1000(t: TestApp, path: string, actor: Actor): Promise<void> {
  await t.http
    .get(path)
    .query({ limit: 1000 })
    .set(...actor.auth)
    .expect(200);
  expectErrorEnvelope(
    await t.http
      .get(path)
      .query({ limit: 1001 })
      .set(...actor.auth),
    400,
    /limit/,
  );
}

/** A fresh self-signed X.509 certificate in PEM, as an identity provider would hand out. */
export async function selfSignedCertificatePem(commonName = 'idp.test'): Promise<string> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await crypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${commonName}`,
    notBefore: new Date(),
    notAfter: new Date(Date.now() + 365 * 24 * 3600 * 1000),
    signingAlgorithm: algorithm,
    keys,
  });
  return certificate.toString('pem');
}
