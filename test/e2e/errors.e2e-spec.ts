import { createUser } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

describe('error envelope', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ BODY_LIMIT: '2kb' })));
  afterAll(() => t.close());

  it('answers unknown routes with 404', async () => {
    const actor = await createUser(t);
    expectErrorEnvelope(await t.http.get('/v1/nowhere').set(...actor.auth), 404);
  });

  it('answers malformed JSON with 400', async () => {
    const actor = await createUser(t);
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Content-Type', 'application/json')
      .send('{"title": "x"');
    expectErrorEnvelope(res, 400, /JSON/);
  });

  it('answers a body over the size limit with 413', async () => {
    const actor = await createUser(t);
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .send({ title: 'x'.repeat(4096) });
    expectErrorEnvelope(res, 413);
  });

  it('echoes the caller request id, or makes one', async () => {
    const given = await t.http.get('/health/live').set('X-Request-Id', 'req-42');
    expect(given.headers['x-request-id']).toBe('req-42');
    const made = await t.http.get('/health/live');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await t.http.get('/health/live').set('X-Request-Id', 'bad id with spaces');
    expect(unsafe.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('sends security headers', async () => {
    const res = await t.http.get('/health/live');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
