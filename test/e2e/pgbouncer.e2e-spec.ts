import { createOrganization, createUser } from '../support/builders';
import { expectContract } from '../support/contract';
import { TEST_DATABASE_URL, TEST_DIRECT_SERVER } from '../support/database';
import { findPgBouncer, PgBouncer, startPgBouncer } from '../support/pgbouncer';
import { createTestApp, TestApp } from '../support/test-app';

const missing = !findPgBouncer();
if (missing) process.stderr.write('pgbouncer e2e skipped: pgbouncer is not installed (Debian: apt-get install -y pgbouncer)\n');

/**
 * Quire behind Debian's PgBouncer (1.18: no prepared statements in transaction mode) with two server
 * connections, so the app's ten clients share them: DATABASE_PREPARED_STATEMENTS=false answers every
 * request; named statements (the default) break there, which is why the setting exists.
 */
(missing ? describe.skip : describe)('behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    const testDatabase = new URL(process.env[TEST_DATABASE_URL] as string);
    // Our own PgBouncer in front of the server itself (under `npm run test:pgbouncer`, not the run's one).
    const server = new URL(process.env[TEST_DIRECT_SERVER] ?? testDatabase.toString());
    server.pathname = testDatabase.pathname;
    bouncer = await startPgBouncer(server.toString(), { poolSize: 2 });
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await bouncer?.stop();
  });

  const appBehindBouncer = async (preparedStatements: boolean) => {
    const testDatabase = new URL(process.env[TEST_DATABASE_URL] as string);
    const direct = new URL(process.env[TEST_DIRECT_SERVER] ?? testDatabase.toString());
    direct.pathname = testDatabase.pathname;
    const app = await createTestApp(
      { DATABASE_PREPARED_STATEMENTS: String(preparedStatements), DATABASE_DIRECT_URL: direct.toString(), MIGRATIONS_RUN: 'true' },
      undefined,
      () => bouncer.url,
    );
    apps.push(app);
    return app;
  };
  const concurrentWhoAmI = async (t: TestApp, count: number) => {
    const actor = await createUser(t);
    return Promise.all(Array.from({ length: count }, () => t.http.get('/v1/user').set(...actor.auth)));
  };

  it('DATABASE_PREPARED_STATEMENTS=false: the hot path, a write and a read after it answer through it (migrations take their lock on the direct URL)', async () => {
    const t = await appBehindBouncer(false);
    const answers = await concurrentWhoAmI(t, 40);
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    expectContract(answers[0], 'getAuthenticatedUser');

    const org = await createOrganization(t);
    const created = await t.http
      .post(`/v1/orgs/${org.id}/spaces`)
      .set(...org.admin.auth)
      .send({ title: 'Pooled' })
      .expect(201);
    const read = await t.http
      .get(`/v1/spaces/${created.body.id}`)
      .set(...org.admin.auth)
      .expect(200);
    expectContract(read, 'getSpaceById');
  });

  it('named prepared statements (the default) fail behind it: the reason for the setting', async () => {
    const t = await appBehindBouncer(true);
    const answers = await concurrentWhoAmI(t, 40);
    expect(answers.some((res) => res.status >= 500)).toBe(true);
  });
});
