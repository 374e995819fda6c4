import { identifiersOf, planTeamMemberChanges } from '../../src/modules/teams/team-member-changes';
import { canAdministerTeams, canListTeams, teamMemberPermissions, teamPermissions } from '../../src/modules/teams/team.policy';

describe('team policy', () => {
  it('lets admins manage every team, owners theirs, and members only view', () => {
    expect(teamPermissions({ membership: { role: 'admin' }, teamRole: null })).toEqual({ admin: true, view: true });
    expect(teamPermissions({ membership: { role: 'read' }, teamRole: 'owner' })).toEqual({ admin: true, view: true });
    expect(teamPermissions({ membership: { role: 'create' }, teamRole: 'member' })).toEqual({ admin: false, view: true });
    expect(teamPermissions({ membership: { role: 'create' }, teamRole: null })).toEqual({ admin: false, view: true });
  });

  it('gives guests nothing, even as a team owner', () => {
    expect(teamPermissions({ membership: { role: null }, teamRole: 'owner' })).toEqual({ admin: false, view: false });
    expect(teamMemberPermissions({ membership: { role: null }, teamRole: null })).toEqual({ view: false });
    expect(canListTeams({ role: null })).toBe(false);
  });

  it('keeps creating, renaming and deleting teams to admins', () => {
    expect(canAdministerTeams({ role: 'admin' })).toBe(true);
    expect(canAdministerTeams({ role: 'create' })).toBe(false);
    expect(canListTeams({ role: 'read' })).toBe(true);
  });
});

describe('planTeamMemberChanges', () => {
  const ids: Record<string, string> = { a: 'A', 'b@x.test': 'B', B: 'B', c: 'C', d: 'D' };
  const resolve = (identifier: string) => ids[identifier];

  it('adds plain members, sets explicit roles and removes', () => {
    expect(planTeamMemberChanges({ add: ['a'], memberships: { c: { role: 'owner' } }, remove: ['d'] }, resolve)).toEqual({
      add: ['A'],
      setRole: [{ userId: 'C', role: 'owner' }],
      remove: ['D'],
    });
  });

  it('removes a user named in both add and remove, even by a different identifier', () => {
    expect(planTeamMemberChanges({ add: ['b@x.test', 'a'], remove: ['B'] }, resolve)).toEqual({ add: ['A'], setRole: [], remove: ['B'] });
    expect(planTeamMemberChanges({ memberships: { a: { role: 'owner' } }, remove: ['a'] }, resolve)).toEqual({ add: [], setRole: [], remove: ['A'] });
  });

  it('lets an explicit role win over a plain add, and names each user once', () => {
    expect(planTeamMemberChanges({ add: ['a', 'a', 'b@x.test', 'B'], memberships: { a: { role: 'owner' } } }, resolve)).toEqual({
      add: ['B'],
      setRole: [{ userId: 'A', role: 'owner' }],
      remove: [],
    });
  });

  it('does nothing for an empty request', () => {
    expect(planTeamMemberChanges({}, resolve)).toEqual({ add: [], setRole: [], remove: [] });
  });

  it('lists every identifier of a request once', () => {
    expect(identifiersOf({ add: ['a', 'b@x.test'], memberships: { a: { role: 'member' }, c: { role: 'owner' } }, remove: ['d', 'a'] })).toEqual([
      'a',
      'b@x.test',
      'c',
      'd',
    ]);
  });
});
