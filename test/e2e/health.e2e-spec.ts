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

  it('is not ready (503) once the database is gone, but still live', async () => {
    const other = await createTestApp();
    await other.app.get(DataSource).destroy();
    expectErrorEnvelope(await other.http.get('/health/ready'), 503, /database/);
    await other.http.get('/health/live').expect(200);
    await other.close().catch(() => undefined);
  });
});
