import { specSourceBodyLimit } from '../../src/common/input-gate/input-gate';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { largeSpec } from '../support/openapi-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The spec source routes (createOpenAPISpec, createOrUpdateOpenAPISpecBySlug) take a body up to
 * specSourceBodyLimit(OPENAPI_MAX_BYTES) instead of BODY_LIMIT, so a spec of OPENAPI_MAX_BYTES fits
 * as text; every other route keeps BODY_LIMIT.
 */
describe('OpenAPI spec sources: body limit', () => {
  const MAX_BYTES = 200_000;
  const LIMIT = specSourceBodyLimit(MAX_BYTES);
  let t: TestApp;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT: '100kb', OPENAPI_MAX_BYTES: String(MAX_BYTES) });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const api = () => `/v1/orgs/${org.id}/openapi`;
  /** A raw JSON body of exactly `bytes` bytes whose source text is filler. */
  const bodyOf = (bytes: number) => {
    const head = '{"source":{"text":"';
    const tail = '"},"slug":"filler"}';
    return head + 'a'.repeat(bytes - head.length - tail.length) + tail;
  };
  const send = (method: 'post' | 'put', url: string, body: string) =>
    t.http[method](url)
      .set(...org.admin.auth)
      .set('Content-Type', 'application/json')
      .send(body);
  /** A valid spec text of exactly `bytes` bytes (JSON, padded with trailing spaces). */
  const specOf = (bytes: number) => {
    const text = largeSpec(bytes - 20_000);
    if (Buffer.byteLength(text) > bytes) throw new Error('fixture too large');
    return text + ' '.repeat(bytes - Buffer.byteLength(text));
  };

  it('lets a body of the spec limit through (n) and refuses one byte more with 413 (n + 1), on POST and PUT', async () => {
    expect(LIMIT).toBeGreaterThan(100 * 1024);
    // At the limit the body passes the gate; its text is larger than OPENAPI_MAX_BYTES, which the module refuses.
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT)), 400, /larger than 200000 bytes/);
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT + 1)), 413);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT)), 400);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT + 1)), 413);
  });

  it('stores a text of OPENAPI_MAX_BYTES (n) larger than BODY_LIMIT, and refuses one byte more (n + 1)', async () => {
    const atLimit = specOf(MAX_BYTES);
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BYTES);
    const created = await t.http
      .put(`${api()}/big`)
      .set(...org.admin.auth)
      .send({ source: { text: atLimit } })
      .expect(201);
    expectContract(created, 'createOrUpdateOpenAPISpecBySlug');
    const raw = await t.http
      .get(`${api()}/big/versions/latest/content/raw`)
      .set(...org.admin.auth)
      .expect(200);
    expect(raw.body.text).toBe(atLimit);
    expectErrorEnvelope(
      await t.http
        .post(api())
        .set(...org.admin.auth)
        .send({ slug: 'bigger', source: { text: `${atLimit} ` } }),
      400,
      /^source\.text: the specification is larger than 200000 bytes$/,
    );
  });

  it('keeps BODY_LIMIT on the other routes of the module', async () => {
    await t.http
      .put(`${api()}/small`)
      .set(...org.admin.auth)
      .send({ source: { text: specOf(30_000) } })
      .expect(201);
    expectErrorEnvelope(
      await t.http
        .patch(`${api()}/small`)
        .set(...org.admin.auth)
        .send({ visibility: 'x'.repeat(150_000) }),
      413,
    );
    expectErrorEnvelope(
      await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'x'.repeat(150_000) }),
      413,
    );
  });
});
