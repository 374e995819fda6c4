import type { Test } from 'supertest';
import type { MemberRoleOrGuest } from '../../src/common/roles';
import { Actor, addMember, createOrganization, OrgFixture } from './builders';
import { expectErrorEnvelope } from './contract';
import type { TestApp } from './test-app';

/**
 * Access checks, written once: nearly every route is checked for the same refusals — no token (401),
 * a caller outside the organization (404), a member whose role is too low (403) — and writing each
 * out by hand for every route made the specs mostly copies of one another. A spec still names, per
 * route, which status each caller gets; these helpers only send the requests and check the envelopes.
 */

/** Sends a fresh `request()` as each caller in turn (null: without a token) and expects the error envelope with that status. */
export async function expectRefused(request: () => Test, ...cases: [caller: Actor | null, status: number][]): Promise<void> {
  for (const [caller, status] of cases) {
    const req = request();
    expectErrorEnvelope(await (caller ? req.set(...caller.auth) : req), status);
  }
}

export interface RouteAccess<F> {
  /** What the request needs, built in the test's fresh organization; in the 403 test after the member, who is passed in. */
  given?: (org: OrgFixture, member?: Actor) => Promise<F>;
  /** The route's request, without a token; `member` is the 403 test's caller. */
  request: (org: OrgFixture, given: F, member?: Actor) => Test;
  /** 'requires authentication': without a token. */
  anonymous: 401;
  /** The admin of another organization; `also` checks more 404s in the same test (unknown ids...), named by `title`. */
  outsider: 404 | { status: 404; title: string; also: (org: OrgFixture, given: F) => Promise<void> };
  /** A new member of the organization with `role` (null: a guest); `after` checks that the refused request changed nothing. */
  member?: { role: MemberRoleOrGuest; status: 403; title?: string; after?: (org: OrgFixture, given: F) => Promise<void> };
}

/**
 * Defines one `it` per check of `route`, each on a fresh organization, titled 'requires authentication',
 * 'answers 404 to a caller from another organization' (or `outsider.title`) and 'refuses guests with 403'
 * or 'refuses a member who is not an admin with 403' (or `member.title`).
 */
export function itChecksAccess<F = undefined>(app: () => TestApp, route: RouteAccess<F>): void {
  const given = (org: OrgFixture, member?: Actor) => (route.given ? route.given(org, member) : Promise.resolve(undefined as F));
  const outsider = typeof route.outsider === 'number' ? { status: route.outsider, title: undefined, also: undefined } : route.outsider;

  it('requires authentication', async () => {
    const org = await createOrganization(app());
    const fixture = await given(org);
    await expectRefused(() => route.request(org, fixture), [null, route.anonymous]);
  });

  it(outsider.title ?? 'answers 404 to a caller from another organization', async () => {
    const org = await createOrganization(app());
    const fixture = await given(org);
    await expectRefused(() => route.request(org, fixture), [(await createOrganization(app())).admin, outsider.status]);
    await outsider.also?.(org, fixture);
  });

  const member = route.member;
  if (!member) return;
  it(member.title ?? (member.role === null ? 'refuses guests with 403' : 'refuses a member who is not an admin with 403'), async () => {
    const org = await createOrganization(app());
    const caller = await addMember(app(), org, member.role);
    const fixture = await given(org, caller);
    await expectRefused(() => route.request(org, fixture, caller), [caller, member.status]);
    await member.after?.(org, fixture);
  });
}
