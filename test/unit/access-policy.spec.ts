import { MEMBER_ROLES, roleRank } from '../../src/common/roles';
import {
  canCreateAtTopLevel,
  canListMemberSpaces,
  canTransfer,
  collectionPermissions,
  levelFromRank,
  spacePermissions,
} from '../../src/modules/access/access.policy';
import { rankSql } from '../../src/modules/access/effective-level.sql';

describe('access policy', () => {
  describe('levelFromRank', () => {
    it('turns every rank the SQL computes back into its role, and 0 into no level', () => {
      for (const role of MEMBER_ROLES) expect(levelFromRank(roleRank(role))).toBe(role);
      expect(levelFromRank(0)).toBeNull();
    });
  });

  describe('rankSql', () => {
    it('maps each role to the rank roleRank gives it, anything else to 0', () => {
      const sql = rankSql('x.role');
      for (const role of MEMBER_ROLES) expect(sql).toContain(`WHEN '${role}' THEN ${roleRank(role)}`);
      expect(sql).toMatch(/ELSE 0 END\)$/);
    });
  });

  describe('spacePermissions', () => {
    const live = { editMode: 'live' as const };
    const locked = { editMode: 'locked' as const };

    it.each([
      [null, { view: false, access: false, comment: false, edit: false, review: false, merge: false, admin: false }],
      ['read', { view: true, access: true, comment: false, edit: false, review: false, merge: false, admin: false }],
      ['comment', { view: true, comment: true, edit: false, review: false, admin: false }],
      ['edit', { view: true, comment: true, edit: true, triggerGitSync: true, review: false, merge: false, admin: false }],
      ['review', { edit: true, review: true, merge: true, admin: false }],
      ['create', { edit: true, review: true, merge: true, admin: false, viewInviteLinks: false }],
      ['admin', { edit: true, review: true, merge: true, admin: true, viewInviteLinks: true, installIntegration: true }],
    ] as const)('at level %s on a live space', (level, expected) => {
      expect(spacePermissions(level, live)).toMatchObject(expected);
    });

    it('refuses every content change on a locked space, even to admins, and keeps the rest', () => {
      expect(spacePermissions('admin', locked)).toEqual({
        view: true,
        access: true,
        admin: true,
        viewInviteLinks: true,
        edit: false,
        triggerGitSync: false,
        comment: true,
        merge: false,
        review: true,
        installIntegration: true,
      });
    });
  });

  describe('collectionPermissions', () => {
    it.each([
      [null, { view: false, create: false, admin: false, viewInviteLinks: false }],
      ['read', { view: true, create: false, admin: false, viewInviteLinks: false }],
      ['review', { view: true, create: false, admin: false, viewInviteLinks: false }],
      ['create', { view: true, create: true, admin: false, viewInviteLinks: false }],
      ['admin', { view: true, create: true, admin: true, viewInviteLinks: true }],
    ] as const)('at level %s', (level, expected) => {
      expect(collectionPermissions(level)).toEqual(expected);
    });
  });

  it('lets creators and admins create at the top level, nobody else', () => {
    expect(MEMBER_ROLES.filter((role) => canCreateAtTopLevel(role))).toEqual(['admin', 'create']);
    expect(canCreateAtTopLevel(null)).toBe(false);
  });

  it('takes an admin on both sides to transfer', () => {
    expect(canTransfer('admin', 'admin')).toBe(true);
    expect(canTransfer('admin', 'create')).toBe(false);
    expect(canTransfer('create', 'admin')).toBe(false);
    expect(canTransfer('admin', null)).toBe(false);
  });

  it('shows a member their own spaces, and anyone to admins', () => {
    expect(canListMemberSpaces({ userId: 'a', role: 'read' }, 'a')).toBe(true);
    expect(canListMemberSpaces({ userId: 'a', role: null }, 'a')).toBe(true);
    expect(canListMemberSpaces({ userId: 'a', role: 'create' }, 'b')).toBe(false);
    expect(canListMemberSpaces({ userId: 'a', role: 'admin' }, 'b')).toBe(true);
  });
});
