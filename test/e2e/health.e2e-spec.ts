import { DataSource } from 'typeorm';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('is live and ready while the database answers', async () => {
    await t.http.get('/health/live').expect(200);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.info.database.status).toBe('up');
  });

  it("runs the app's sessions with JIT off (decision 28), whatever the server's default", async () => {
    const [server] = (await t.dataSource.query(`SELECT boot_val FROM pg_settings WHERE name = 'jit'`)) as { boot_val: string }[];
    expect(server.boot_val).toBe('on'); // PostgreSQL's default: the setting below is Quire's doing
    const [session] = (await t.dataSource.query(`SELECT current_setting('jit') AS jit, current_setting('application_name') AS app`)) as {
      jit: string;
      app: string;
    }[];
    expect(session).toEqual({ jit: 'off', app: 'quire' });
  });

  it('is not ready (503) once the database is gone, but still live', async () => {
    const other = await createTestApp();
    await other.app.get(DataSource).destroy();
    expectErrorEnvelope(await other.http.get('/health/ready'), 503, /database/);
    await other.http.get('/health/live').expect(200);
    await other.close().catch(() => undefined);
  });
});
