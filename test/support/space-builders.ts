import { CollectionsService } from '../../src/modules/collections/collections.service';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { Actor, OrgFixture, unique } from './builders';
import type { TestApp } from './test-app';

/** Builders for spaces and collections, through the spaces and collections services (as the org's admin by default). */
async function membershipOf(t: TestApp, org: OrgFixture, actor: Actor): Promise<Membership> {
  const membership = await t.app.get(OrganizationsRepository).findMembership(org.id, actor.user.id);
  if (!membership) throw new Error(`${actor.user.email} is not in organization ${org.id}`);
  return membership;
}

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
