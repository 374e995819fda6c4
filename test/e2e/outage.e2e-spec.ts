import { Writable } from 'node:stream';
import { createUser, unique } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { TEST_DATABASE_URL } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestApp, TestApp } from '../support/test-app';

/** The database goes away mid-run (every connection cut, new ones refused) and comes back. */
describe('database outage', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  const logLines: string[] = [];

  beforeAll(async () => {
    const target = new URL(process.env[TEST_DATABASE_URL] as string);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.up();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    t = await createTestApp({ LOG_LEVEL: 'warn' }, sink, (url) => proxy.rewrite(url));
  });
  afterAll(async () => {
    await proxy.up().catch(() => undefined);
    await t.close().catch(() => undefined);
    await proxy.down();
  });

  const waitUntilReady = async () => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await t.http.get('/health/ready');
      if (res.status === 200) return;
      if (Date.now() > deadline) throw new Error(`not ready after the database came back: ${res.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('answers 503 with Retry-After while the database is away; an idempotent retry afterwards creates exactly one resource', async () => {
    const actor = await createUser(t);
    const title = unique('Outage');
    const key = unique('key');
    const create = () =>
      t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .set('Idempotency-Key', key)
        .send({ title });

    await t.http
      .get('/v1/user')
      .set(...actor.auth)
      .expect(200);
    await proxy.down();

    const during = await create();
    expectErrorEnvelope(during, 503, /database/);
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    const read = await t.http.get('/v1/user').set(...actor.auth);
    expectErrorEnvelope(read, 503);
    expect(read.headers['retry-after']).toBeDefined();
    expectErrorEnvelope(await t.http.get('/health/ready'), 503, /database/);
    await t.http.get('/health/live').expect(200);

    await proxy.up();
    await waitUntilReady();

    const first = await create().expect(201);
    const replay = await create().expect(201);
    expect(replay.body.id).toBe(first.body.id);
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM organizations WHERE title = $1`, [title]);
    expect(n).toBe(1);

    // The outage was logged with its stable code and the driver's, never as an unexpected 500.
    const failures = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.errorCode === 'db_unavailable');
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]).toMatchObject({ status: 503, route: '/v1/orgs' });
    expect(failures.some((entry) => typeof entry.driverCode === 'string')).toBe(true);
  });
});
