import { DataSource } from 'typeorm';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';
import { Gauge } from 'prom-client';
import request from 'supertest';
import { MetricsListener } from '../../src/common/metrics/metrics-listener';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import { createUser } from '../support/builders';

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

const TOKEN = 'metrics-token-0123456789';

describe('/metrics', () => {
  describe('behind METRICS_TOKEN on the public port', () => {
    let t: TestApp;
    beforeAll(async () => (t = await createTestApp({ METRICS_TOKEN: TOKEN })));
    afterAll(() => t.close());

    it('refuses a scrape without the token, or with an API token', async () => {
      expectErrorEnvelope(await t.http.get('/metrics'), 401);
      const actor = await createUser(t);
      expectErrorEnvelope(await t.http.get('/metrics').set(...actor.auth), 401);
    });

    it('serves Prometheus text: request histogram by route template, pool gauges, event-loop lag', async () => {
      const actor = await createUser(t);
      await t.http
        .get(`/v1/users/${actor.user.id}`)
        .set(...actor.auth)
        .expect(200);
      await t.http.get('/v1/users/nobody').set(...actor.auth);
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.text).toMatch(/^# TYPE quire_http_request_duration_seconds histogram$/m);
      expect(res.text).toMatch(/^quire_http_request_duration_seconds_count\{method="GET",route="\/v1\/users\/:userId",status="200"\} [1-9]/m);
      expect(res.text).toMatch(/^quire_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/v1\/users\/:userId",status="404"\} \d+/m);
      expect(res.text).not.toContain(actor.user.id);
      for (const gauge of ['quire_db_pool_connections_total', 'quire_db_pool_connections_idle', 'quire_db_pool_connections_in_use', 'quire_db_pool_waiting']) {
        expect(res.text).toMatch(new RegExp(`^${gauge} \\d+$`, 'm'));
      }
      expect(res.text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e+-]+$/m);
    });

    it('lets other modules register metrics on the registry', async () => {
      const metrics = t.app.get(MetricsService);
      new Gauge({ name: 'quire_jobs_queue_depth', help: 'test', registers: [metrics.registry] }).set(7);
      const res = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.text).toMatch(/^quire_jobs_queue_depth 7$/m);
    });
  });

  it('is not served on the public port without configuration', async () => {
    const t = await createTestApp();
    try {
      expectErrorEnvelope(await t.http.get('/metrics'), 404);
    } finally {
      await t.close();
    }
  });

  it('moves to its own listener with METRICS_PORT (and keeps the token)', async () => {
    const t = await createTestApp({ METRICS_PORT: '0', HOST: '127.0.0.1', METRICS_TOKEN: TOKEN });
    try {
      expectErrorEnvelope(await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`), 404);
      const port = t.app.get(MetricsListener).port;
      expect(port).toBeGreaterThan(0);
      const own = request(`http://127.0.0.1:${port}`);
      expect((await own.get('/metrics')).status).toBe(401);
      const res = await own.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
      expect(res.text).toContain('quire_db_pool_waiting');
    } finally {
      await t.close();
    }
  });
});
