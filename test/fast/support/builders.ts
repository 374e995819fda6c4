import { randomBytes } from 'node:crypto';
import type { MemberRoleOrGuest } from '../../../src/common/roles';
import { AdminService } from '../../../src/modules/admin/admin.service';
import { CollectionsService } from '../../../src/modules/collections/collections.service';
import { Membership } from '../../../src/modules/organizations/membership.entity';
import { OrganizationsRepository } from '../../../src/modules/organizations/organizations.repository';
import { OrganizationsService } from '../../../src/modules/organizations/organizations.service';
import { SpacesService } from '../../../src/modules/spaces/spaces.service';
import { User } from '../../../src/modules/users/user.entity';
import { UsersService } from '../../../src/modules/users/users.service';
import type { FastApp } from './fast-app';

/** Builders make the fast tier's data through the application's own services, never by hand-written SQL. */
export const unique = (prefix = 'x') => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface Member {
  user: User;
  membership: Membership;
}

export interface Org {
  id: string;
  admin: Member;
}

/** A user of no organization. */
export async function createUser(t: FastApp): Promise<User> {
  return (await t.get(UsersService).findOrCreate(`${unique('user')}@example.com`, undefined)).user;
}

/** An organization with a fresh admin. */
export async function createOrganization(t: FastApp): Promise<Org> {
  const user = await createUser(t);
  const { organization } = await t.get(OrganizationsService).create(user, { title: unique('Org') });
  return { id: organization.id, admin: { user, membership: await membershipOf(t, organization.id, user) } };
}

/** A new user who is a member of `org` with `role` (null: guest). */
export async function addMember(t: FastApp, org: Org, role: MemberRoleOrGuest): Promise<Member> {
  const email = `${unique('member')}@example.com`;
  await t.get(AdminService).createUser({ organizationId: org.id, email, role });
  const user = (await t.get(UsersService).findByEmail(email)) as User;
  return { user, membership: await membershipOf(t, org.id, user) };
}

export async function membershipOf(t: FastApp, organizationId: string, user: User): Promise<Membership> {
  const membership = await t.get(OrganizationsRepository).findMembership(organizationId, user.id);
  if (!membership) throw new Error(`${user.email} is not in organization ${organizationId}`);
  return membership;
}

/** A new space of `org`, made by `by` (the admin by default). */
export async function createSpace(t: FastApp, org: Org, overrides: { title?: string; parent?: string; by?: Member } = {}) {
  const by = overrides.by ?? org.admin;
  const { space } = await t.get(SpacesService).create(by.user, by.membership, { title: overrides.title ?? unique('Space'), parent: overrides.parent });
  return space;
}

/** A new collection of `org`, made by `by` (the admin by default). */
export async function createCollection(t: FastApp, org: Org, overrides: { title?: string; parent?: string; by?: Member } = {}) {
  const by = overrides.by ?? org.admin;
  const { collection } = await t
    .get(CollectionsService)
    .create(by.user, by.membership, { title: overrides.title ?? unique('Collection'), parent: overrides.parent });
  return collection;
}
