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
  /** What the request needs, built in the test's fresh organization after the member of the 403 check (when there is one), who is passed in. */
  given?: (org: OrgFixture, member?: Actor) => Promise<F>;
  /** The route's request, without a token; `member` is the 403 check's caller. */
  request: (org: OrgFixture, given: F, member?: Actor) => Test;
  /** 'requires authentication': without a token. */
  anonymous: 401;
  /** The admin of another organization; `also` checks more 404s (unknown ids...), named by `title`. */
  outsider: 404 | { status: 404; title: string; also: (org: OrgFixture, given: F) => Promise<void> };
  /** A new member of the organization with `role` (null: a guest); `after` checks that the refused request changed nothing. */
  member?: { role: MemberRoleOrGuest; status: 403; title?: string; after?: (org: OrgFixture, given: F) => Promise<void> };
}

/**
 * Defines one `it` for `route`, on one fresh organization: without a token, then the admin of another
 * organization (and `outsider.also`), then, when given, a new member with `member.role` (and `member.after`).
 * One organization and one fixture for all three, not one each: the refusals write nothing, so they need no
 * clean slate, and a fixture per refusal was most of the cost of these checks. (The generated access matrix,
 * test/e2e/access-matrix.e2e-spec.ts, sends the same refusals to every scoped route from the declarations;
 * these keep each route's statuses written by hand, which checks the declarations themselves.)
 */
export function itChecksAccess<F = undefined>(app: () => TestApp, route: RouteAccess<F>): void {
  const outsider = typeof route.outsider === 'number' ? { status: route.outsider, title: undefined, also: undefined } : route.outsider;
  const member = route.member;
  const titles = [
    'requires authentication',
    outsider.title ?? 'answers 404 to a caller from another organization',
    ...(member ? [member.title ?? (member.role === null ? 'refuses guests with 403' : 'refuses a member who is not an admin with 403')] : []),
  ];

  it(titles.join('; '), async () => {
    const org = await createOrganization(app());
    const caller = member ? await addMember(app(), org, member.role) : undefined;
    const fixture = route.given ? await route.given(org, caller) : (undefined as F);
    await expectRefused(() => route.request(org, fixture), [null, route.anonymous]);
    await expectRefused(() => route.request(org, fixture), [(await createOrganization(app())).admin, outsider.status]);
    await outsider.also?.(org, fixture);
    if (!member || !caller) return;
    await expectRefused(() => route.request(org, fixture, caller), [caller, member.status]);
    await member.after?.(org, fixture);
  });
}

/** Rows hashed per table and column naming the fixture (`part`), as the matrices' snapshot statements answer them. */
export type RowHashes = { part: string; hash: string }[];

/** The parts of `after` whose hash differs from `before`'s: the tables a refused request must not have changed. */
export function changedParts(before: RowHashes, after: RowHashes): string[] {
  return after.filter(({ part, hash }) => before.find((row) => row.part === part)?.hash !== hash).map(({ part }) => part);
}
