import { spawn } from 'node:child_process';
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

  it('refuses bad input with a message on stderr and exit code 1', async () => {
    const badRole = await runCli(['user:create', '--org', 'x', '--email', 'a@b.test', '--role', 'owner'], env());
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/guest/);
    const unknownUser = await runCli(['token:create', '--email', 'nobody@nowhere.test'], env());
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/No user/);
    expect(unknownUser.stdout).toBe('');
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
