import { spawn } from 'node:child_process';
import { auditEvents } from '../support/audit-events';
import { unique } from '../support/builders';
import { TEST_DATABASE_URL } from '../support/database';
import { expectErrorEnvelope } from '../support/contract';
import { runCli } from '../support/run-cli';
import { ROOT } from '../support/server-process';
import { createTestApp, TestApp } from '../support/test-app';

describe('admin CLI', () => {
  let t: TestApp;
  const env = () => ({ DATABASE_URL: process.env[TEST_DATABASE_URL] as string, LOG_LEVEL: 'silent' });
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);

  it('bootstrap prints one JSON line whose token works, and is idempotent', async () => {
    const email = `${unique('boot')}@example.com`;
    const title = unique('Boot Org');
    const first = await runCli(['bootstrap', '--org', title, '--email', email, '--name', 'Boot Admin'], env());
    expect(first.code).toBe(0);
    expect(lines(first.stdout)).toHaveLength(1);
    const created = JSON.parse(first.stdout);
    expect(created).toEqual({ organizationId: expect.any(String), userId: expect.any(String), token: expect.stringMatching(/^quire_/) });

    const me = await t.http.get('/v1/user').set('Authorization', `Bearer ${created.token}`).expect(200);
    expect(me.body).toMatchObject({ id: created.userId, displayName: 'Boot Admin', email });
    const org = await t.http.get(`/v1/orgs/${created.organizationId}`).set('Authorization', `Bearer ${created.token}`).expect(200);
    expect(org.body).toMatchObject({ title, permissions: { admin: true } });

    const again = JSON.parse((await runCli(['bootstrap', '--org', title, '--email', email], env())).stdout);
    expect(again).toMatchObject({ organizationId: created.organizationId, userId: created.userId });
  });

  it('user:create adds a member with a role and prints a token; token:create issues another', async () => {
    const boot = JSON.parse((await runCli(['bootstrap', '--org', unique('Org'), '--email', `${unique('a')}@example.com`], env())).stdout);
    const email = `${unique('reader')}@example.com`;
    const made = await runCli(['user:create', '--org', boot.organizationId, '--email', email, '--role', 'read'], env());
    expect(made.code).toBe(0);
    const user = JSON.parse(made.stdout);
    expect(user).toEqual({ userId: expect.any(String), token: expect.any(String) });
    const org = await t.http.get(`/v1/orgs/${boot.organizationId}`).set('Authorization', `Bearer ${user.token}`).expect(200);
    expect(org.body.permissions.admin).toBe(false);

    const guest = JSON.parse(
      (await runCli(['user:create', '--org', boot.organizationId, '--email', `${unique('g')}@example.com`, '--role', 'guest'], env())).stdout,
    );
    const asGuest = await t.http.get(`/v1/orgs/${boot.organizationId}`).set('Authorization', `Bearer ${guest.token}`).expect(200);
    expect(asGuest.body.permissions.listMembers).toBe(false);

    const token = JSON.parse((await runCli(['token:create', '--email', email], env())).stdout);
    const me = await t.http.get('/v1/user').set('Authorization', `Bearer ${token.token}`).expect(200);
    expect(me.body.id).toBe(user.userId);
  });

  it('records what the operator changes in each organization: its creation, a member added, tokens created and revoked (by id, never the secret)', async () => {
    const events = async (organizationId: string) =>
      (await auditEvents(t, organizationId)).map(({ action, actor_type, actor_id, source, target_type, target_id, payload }) => ({
        action,
        actor_type,
        actor_id,
        source,
        target_type,
        target_id,
        payload,
      }));
    const tokenIds = async (userId: string) =>
      ((await t.dataSource.query(`SELECT id FROM api_tokens WHERE user_id = $1 ORDER BY created_at, id`, [userId])) as { id: string }[]).map((row) => row.id);
    const operator = { actor_type: 'support', actor_id: 'operator', source: 'support' };

    const title = unique('Audited Org');
    const boot = JSON.parse((await runCli(['bootstrap', '--org', title, '--email', `${unique('owner')}@example.com`], env())).stdout);
    const [bootToken] = await tokenIds(boot.userId);
    expect(await events(boot.organizationId)).toEqual([
      { action: 'organization.created', ...operator, target_type: 'organization', target_id: boot.organizationId, payload: { adminUserId: boot.userId } },
      { action: 'api_token.created', ...operator, target_type: 'api-token', target_id: bootToken, payload: { userId: boot.userId } },
    ]);

    const second = JSON.parse((await runCli(['bootstrap', '--org', unique('Second Org'), '--email', `${unique('other')}@example.com`], env())).stdout);
    const email = `${unique('member')}@example.com`;
    const member = JSON.parse((await runCli(['user:create', '--org', boot.organizationId, '--email', email, '--role', 'edit'], env())).stdout);
    await runCli(['user:create', '--org', second.organizationId, '--email', email, '--role', 'read'], env());
    const extra = JSON.parse((await runCli(['token:create', '--email', email], env())).stdout);
    const [first, again, third] = await tokenIds(member.userId);
    const after = (await events(boot.organizationId)).slice(2);
    expect(after).toEqual([
      { action: 'member.added', ...operator, target_type: 'user', target_id: member.userId, payload: { changes: [{ field: 'role', after: 'edit' }] } },
      { action: 'api_token.created', ...operator, target_type: 'api-token', target_id: first, payload: { userId: member.userId } },
      // A token of a member of two organizations can act in both: each records it.
      { action: 'api_token.created', ...operator, target_type: 'api-token', target_id: again, payload: { userId: member.userId } },
      { action: 'api_token.created', ...operator, target_type: 'api-token', target_id: third, payload: { userId: member.userId } },
    ]);
    expect((await events(second.organizationId)).filter((event) => event.target_id === third)).toHaveLength(1);

    // A leaked token, revoked by its secret: it stops working at once, and both organizations record it.
    await t.http.get('/v1/user').set('Authorization', `Bearer ${extra.token}`).expect(200);
    expect(JSON.parse((await runCli(['token:revoke', '--token', extra.token], env())).stdout)).toEqual({ revoked: 1 });
    expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', `Bearer ${extra.token}`), 401);
    await t.http.get('/v1/user').set('Authorization', `Bearer ${member.token}`).expect(200);
    for (const organizationId of [boot.organizationId, second.organizationId]) {
      expect((await events(organizationId)).at(-1)).toEqual({
        action: 'api_token.revoked',
        ...operator,
        target_type: 'api-token',
        target_id: third,
        payload: { userId: member.userId },
      });
    }
    // Every token of a user; then none is left to revoke.
    expect(JSON.parse((await runCli(['token:revoke', '--email', email], env())).stdout)).toEqual({ revoked: 2 });
    expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', `Bearer ${member.token}`), 401);
    const revokedAlready = await runCli(['token:revoke', '--token', extra.token], env());
    expect(revokedAlready.code).toBe(1);
    expect(revokedAlready.stderr).toMatch(/No API token has this secret/);
    const recorded = JSON.stringify(await events(boot.organizationId));
    for (const secret of [boot.token, member.token, extra.token]) expect(recorded).not.toContain(secret);
  });

  it('refuses bad input with a message on stderr and exit code 1', async () => {
    const badRole = await runCli(['user:create', '--org', 'x', '--email', 'a@b.test', '--role', 'owner'], env());
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/guest/);
    const unknownUser = await runCli(['token:create', '--email', 'nobody@nowhere.test'], env());
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/No user/);
    expect(unknownUser.stdout).toBe('');
    const neither = await runCli(['token:revoke'], env());
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/--token <secret> or --email <email>/);
    const both = await runCli(['token:revoke', '--token', 'x', '--email', 'a@b.test'], env());
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/cannot be used with/);
  });

  it('stops with one line naming a bad environment variable', async () => {
    const result = await runCli(['token:create', '--email', 'a@b.test'], { ...env(), PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(/^Invalid environment variable PORT: /);
  });

  it('runs as the README writes it (`npm run -s cli -- …`): stdout is the JSON line alone, ready for a pipe', async () => {
    const email = `${unique('readme')}@example.com`;
    const child = spawn('npm', ['run', '-s', 'cli', '--', 'bootstrap', '--org', unique('Readme Org'), '--email', email], {
      cwd: ROOT,
      env: { ...process.env, ...env() },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(lines(stdout)).toHaveLength(1);
    expect(JSON.parse(stdout)).toEqual({ organizationId: expect.any(String), userId: expect.any(String), token: expect.stringMatching(/^quire_/) });
  });

  it('keeps the 401 envelope for a revoked or unknown token', async () => {
    expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', 'Bearer quire_unknown'), 401);
  });
});
