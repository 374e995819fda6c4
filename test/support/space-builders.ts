import { CollectionsService } from '../../src/modules/collections/collections.service';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { Actor, membershipOf, OrgFixture, unique } from './builders';
import type { TestApp } from './test-app';
import type { Website } from './website-fixture';

/** Builders for spaces and collections, through the spaces and collections services (as the org's admin by default). */

/** A new space of `org` (in collection `parent` when given), with its first revision. */
export async function createSpace(
  t: TestApp,
  org: OrgFixture,
  overrides: { title?: string; parent?: string; actor?: Actor } = {},
): Promise<{ id: string; revisionId: string }> {
  const actor = overrides.actor ?? org.admin;
  const { space } = await t.app.get(SpacesService).create(actor.user, await membershipOf(t, org, actor), {
    title: overrides.title ?? unique('Space'),
    parent: overrides.parent,
  });
  return { id: space.id, revisionId: space.revisionId };
}

/** A new collection of `org` (inside `parent` when given). */
export async function createCollection(
  t: TestApp,
  org: OrgFixture,
  overrides: { title?: string; parent?: string; actor?: Actor } = {},
): Promise<{ id: string }> {
  const actor = overrides.actor ?? org.admin;
  const { collection } = await t.app.get(CollectionsService).create(actor.user, await membershipOf(t, org, actor), {
    title: overrides.title ?? unique('Collection'),
    parent: overrides.parent,
  });
  return { id: collection.id };
}

/** A new space of `org` with `site`'s /docs/ imported through the API as the admin: the import's revision, page ids by path, and the files. */
export async function createImportedSpace(t: TestApp, org: OrgFixture, site: Website) {
  const space = await createSpace(t, org);
  const res = await t.http
    .post(`/v1/spaces/${space.id}/content/import`)
    .set(...org.admin.auth)
    .send({ url: `${site.origin}/docs/`, source: 'website' })
    .expect(201);
  const tree = await t.http
    .get(`/v1/spaces/${space.id}/content/pages`)
    .set(...org.admin.auth)
    .expect(200);
  const pages: Record<string, string> = {};
  const walk = (list: { id: string; path: string; pages: [] }[]) => list.forEach((page) => ((pages[page.path] = page.id), walk(page.pages)));
  walk(tree.body.pages);
  const files = await t.http
    .get(`/v1/spaces/${space.id}/content/files`)
    .set(...org.admin.auth)
    .expect(200);
  return { space, revision: res.body.revision as string, pages, files: files.body.items as { id: string; name: string; downloadURL: string }[] };
}
