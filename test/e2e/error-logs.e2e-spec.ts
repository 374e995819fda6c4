import { createUser, unique } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { captureLogs } from '../support/log-capture';
import { createTestApp, TestApp } from '../support/test-app';

/** A forced database failure with a secret planted in the body, the SQL parameters and the query string. */
describe('error logs', () => {
  let t: TestApp;
  const { lines: logLines, sink } = captureLogs();
  const trigger = `refuse_${unique('t').replace(/-/g, '_')}`;

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' }, sink);
    // An unanticipated database failure whose message quotes the inserted value, as PostgreSQL's often do.
    await t.dataSource.query(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title LIKE 'planted-%' THEN RAISE EXCEPTION 'refusing title %', NEW.title USING ERRCODE = 'XX000'; END IF;
        RETURN NEW;
      END $$`);
    await t.dataSource.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON organizations FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
  });
  afterAll(async () => {
    await t.dataSource.query(`DROP TRIGGER IF EXISTS ${trigger} ON organizations`);
    await t.dataSource.query(`DROP FUNCTION IF EXISTS ${trigger}()`);
    await t.close();
  });

  it('logs a 500 with its error code, request id, route and driver code, and never the body, parameters, query or token', async () => {
    const actor = await createUser(t);
    const secret = `planted-${unique('s3cr3t')}`;
    const querySecret = unique('q-s3cr3t');
    const res = await t.http
      .post(`/v1/orgs?apiKey=${querySecret}`)
      .set(...actor.auth)
      .set('X-Request-Id', 'req-planted-1')
      .send({ title: secret });
    expectErrorEnvelope(res, 500);
    expect(JSON.stringify(res.body)).not.toContain(secret);

    const entry = logLines.map((line) => JSON.parse(line)).find((e) => e.msg === 'unexpected error');
    expect(entry).toMatchObject({ requestId: 'req-planted-1', route: '/v1/orgs', status: 500, errorCode: 'db_error', driverCode: 'XX000' });
    expect(entry.err).toMatchObject({ type: 'QueryFailedError', code: 'XX000' });
    const log = logLines.join('\n');
    expect(log).toContain('req-planted-1');
    for (const planted of [secret, querySecret, actor.token]) expect(log).not.toContain(planted);
    expect(log).not.toContain('INSERT INTO');
  });
});
