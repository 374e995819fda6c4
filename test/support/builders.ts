import { randomBytes } from 'node:crypto';
import type { MemberRoleOrGuest } from '../../src/common/roles';
import { AdminService } from '../../src/modules/admin/admin.service';
import { Membership } from '../../src/modules/organizations/membership.entity';
import { OrganizationsRepository } from '../../src/modules/organizations/organizations.repository';
import { OrganizationsService } from '../../src/modules/organizations/organizations.service';
import { TokensService } from '../../src/modules/tokens/tokens.service';
import { User } from '../../src/modules/users/user.entity';
import { UsersService } from '../../src/modules/users/users.service';
import type { TestApp } from './test-app';

/** Builders create test data through the application's own services, never by hand-written SQL. */
export const unique = (prefix = 'x') => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface Actor {
  user: User;
  token: string;
  /** `Authorization` header value for supertest's `.set()`. */
  auth: [string, string];
}

export async function createUser(t: TestApp, overrides: { email?: string; name?: string } = {}): Promise<Actor> {
  const email = overrides.email ?? `${unique('user')}@example.com`;
  const { user } = await t.app.get(UsersService).findOrCreate(email, overrides.name);
  const token = await t.app.get(TokensService).issue(user.id);
  return { user, token, auth: ['Authorization', `Bearer ${token}`] };
}

export interface OrgFixture {
  id: string;
  admin: Actor;
}

/** An organization with a fresh admin (or the given one). */
export async function createOrganization(t: TestApp, overrides: { title?: string; admin?: Actor } = {}): Promise<OrgFixture> {
  const admin = overrides.admin ?? (await createUser(t));
  const { organization } = await t.app.get(OrganizationsService).create(admin.user, { title: overrides.title ?? unique('Org') });
  return { id: organization.id, admin };
}

/** A new user who is a member of `org` with `role` (null: guest). */
export async function addMember(t: TestApp, org: OrgFixture, role: MemberRoleOrGuest, overrides: { email?: string; name?: string } = {}): Promise<Actor> {
  const email = overrides.email ?? `${unique('member')}@example.com`;
  const { userId, token } = await t.app.get(AdminService).createUser({ organizationId: org.id, email, name: overrides.name, role });
  const user = (await t.app.get(UsersService).findByEmail(email)) as User;
  expect(user.id).toBe(userId);
  return { user, token, auth: ['Authorization', `Bearer ${token}`] };
}

/** `actor`'s membership in `org`, for calling services directly as that member. */
export async function membershipOf(t: TestApp, org: OrgFixture, actor: Actor): Promise<Membership> {
  const membership = await t.app.get(OrganizationsRepository).findMembership(org.id, actor.user.id);
  if (!membership) throw new Error(`${actor.user.email} is not in organization ${org.id}`);
  return membership;
}
