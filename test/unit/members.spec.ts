import { jwtVerify } from 'jose';
import { containsPattern } from '../../src/common/sql/like-pattern';
import { canInviteMembers, canListMembers, memberPermissions } from '../../src/modules/members/member.policy';
import { signVisitorClaims, VISITOR_CLAIMS_TTL_SECONDS } from '../../src/modules/members/visitor-claims';
import type { MemberRoleOrGuest } from '../../src/common/roles';

const caller = (role: MemberRoleOrGuest, userId = 'me') => ({ role, userId });

describe('member policy', () => {
  it('lets every member but guests list members', () => {
    expect(canListMembers(caller('read'))).toBe(true);
    expect(canListMembers(caller('admin'))).toBe(true);
    expect(canListMembers(caller(null))).toBe(false);
  });

  it('lets guests see only themselves', () => {
    expect(memberPermissions(caller(null), { userId: 'me' }).view).toBe(true);
    expect(memberPermissions(caller(null), { userId: 'other' }).view).toBe(false);
    expect(memberPermissions(caller('read'), { userId: 'other' }).view).toBe(true);
  });

  it('lets admins manage anyone, and anyone leave', () => {
    expect(memberPermissions(caller('admin'), { userId: 'other' })).toEqual({ view: true, update: true, remove: true });
    expect(memberPermissions(caller('create'), { userId: 'other' })).toEqual({ view: true, update: false, remove: false });
    expect(memberPermissions(caller('create'), { userId: 'me' })).toEqual({ view: true, update: false, remove: true });
  });

  it('lets only admins invite', () => {
    expect(canInviteMembers(caller('admin'))).toBe(true);
    expect(canInviteMembers(caller('create'))).toBe(false);
    expect(canInviteMembers(caller(null))).toBe(false);
  });
});

describe('containsPattern', () => {
  it('wraps the text in wildcards and escapes LIKE metacharacters', () => {
    expect(containsPattern('ada')).toBe('%ada%');
    expect(containsPattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});

describe('signVisitorClaims', () => {
  const key = new TextEncoder().encode('k'.repeat(32));

  it('signs sub, organization, role, iss, iat and exp with HS256', async () => {
    const now = new Date();
    const token = await signVisitorClaims({ userId: 'u1', organizationId: 'o1', role: 'edit', issuer: 'https://quire.test', now }, key);
    const { payload, protectedHeader } = await jwtVerify(token, key, { issuer: 'https://quire.test' });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    const iat = Math.floor(now.getTime() / 1000);
    expect(payload).toEqual({ sub: 'u1', organization: 'o1', role: 'edit', iss: 'https://quire.test', iat, exp: iat + VISITOR_CLAIMS_TTL_SECONDS });
  });

  it('keeps a guest role as null', async () => {
    const token = await signVisitorClaims({ userId: 'u1', organizationId: 'o1', role: null, issuer: 'https://quire.test' }, key);
    expect((await jwtVerify(token, key)).payload.role).toBeNull();
  });

  it('produces tokens that expire and that another key does not verify', async () => {
    const token = await signVisitorClaims({ userId: 'u1', organizationId: 'o1', role: 'read', issuer: 'i', now: new Date('2020-01-01T00:00:00Z') }, key);
    await expect(jwtVerify(token, key)).rejects.toThrow(/exp/);
    const fresh = await signVisitorClaims({ userId: 'u1', organizationId: 'o1', role: 'read', issuer: 'i' }, key);
    await expect(jwtVerify(fresh, new TextEncoder().encode('x'.repeat(32)))).rejects.toThrow(/signature/);
  });
});
