import { Actor, OrgFixture, unique } from './builders';
import { createSpace } from './space-builders';
import type { TestApp } from './test-app';

/** Builders for docs sites, through the HTTP API as the organization's admin (by default). */

export const sitesPath = (org: OrgFixture) => `/v1/orgs/${org.id}/sites`;
export const sitePath = (org: OrgFixture, siteId: string) => `${sitesPath(org)}/${siteId}`;

/** A new site of `org` showing `spaces` (ids) at its root, in order. */
export async function createSite(t: TestApp, org: OrgFixture, body: Record<string, unknown> = {}, actor: Actor = org.admin): Promise<any> {
  const res = await t.http
    .post(sitesPath(org))
    .set(...actor.auth)
    .send({ title: unique('Site'), ...body });
  if (res.status !== 201) throw new Error(`createSite answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A site with `count` new spaces at its root: the site and the site spaces, in order. */
export async function createSiteWithSpaces(t: TestApp, org: OrgFixture, count: number): Promise<{ site: any; spaceIds: string[]; siteSpaces: any[] }> {
  const spaceIds: string[] = [];
  for (let i = 0; i < count; i++) spaceIds.push((await createSpace(t, org, { title: `Space ${i + 1}` })).id);
  const site = await createSite(t, org, { spaces: spaceIds });
  const res = await t.http
    .get(`${sitePath(org, site.id)}/structure`)
    .set(...org.admin.auth)
    .expect(200);
  return { site, spaceIds, siteSpaces: res.body.structure };
}

/** Adds a section holding a new space; answers the section. */
export async function addSection(t: TestApp, org: OrgFixture, siteId: string, body: Record<string, unknown> = {}): Promise<any> {
  const spaceId = (body.spaceId as string | undefined) ?? (await createSpace(t, org, { title: unique('Section space') })).id;
  const res = await t.http
    .post(`${sitePath(org, siteId)}/sections`)
    .set(...org.admin.auth)
    .send({ ...body, spaceId });
  if (res.status !== 201) throw new Error(`addSection answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
