import type { AddressInfo } from 'node:net';
import { addMember, createOrganization, createUser, OrgFixture, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { ensureGitbookCli, gitbook } from '../support/integration-cli';
import { createTestApp, TestApp } from '../support/test-app';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SCRIPT = 'export default { async fetch() { return new Response("ok"); } };';

describe('integrations: publish, discover, unpublish', () => {
  let t: TestApp;
  let org: OrgFixture;
  let endpoint: string;

  beforeAll(async () => {
    ensureGitbookCli();
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' });
    await t.app.listen(0, '127.0.0.1');
    endpoint = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    org = await createOrganization(t);
  }, 300_000);
  afterAll(() => t?.close());

  const body = (overrides: Record<string, unknown> = {}) => ({
    runtime: 'v2',
    title: 'Some integration',
    description: 'Does things',
    scopes: ['space:content:read'],
    script: SCRIPT,
    organization: org.id,
    ...overrides,
  });

  it('refuses without a token (401)', async () => {
    expectErrorEnvelope(await t.http.get('/v1/integrations'), 401);
    expectErrorEnvelope(await t.http.post('/v1/integrations/x').send(body()), 401);
  });

  it('publishes with the real GitBook CLI, serves the icon, and republishes as version 2', async () => {
    const run = await gitbook('quire-sample', ['publish'], { endpoint, token: org.admin.token, organization: org.id });
    expect({ code: run.code, stderr: run.stderr.slice(-2000) }).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('Integration "quire-sample" published');

    const res = await t.http.get('/v1/integrations/quire-sample').set(...org.admin.auth);
    expectContract(res, 'getIntegrationByName');
    expect(res.body).toMatchObject({
      object: 'integration',
      name: 'quire-sample',
      version: 1,
      title: 'Quire sample',
      visibility: 'public',
      target: 'all',
      scopes: ['space:content:read'],
      blocks: [expect.objectContaining({ id: 'counter', title: 'Counter' })],
      configurations: { account: expect.objectContaining({ required: ['greeting'] }) },
      contentSecurityPolicy: { 'script-src': "'self'" },
      owner: expect.objectContaining({ id: org.id }),
      permissions: { admin: true, install: true },
    });
    const icon = await t.http.get(new URL(res.body.urls.icon).pathname);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/png');
    expect(Buffer.from(icon.body as Buffer).equals(PNG)).toBe(true);

    const again = await gitbook('quire-sample', ['publish'], { endpoint, token: org.admin.token, organization: org.id });
    expect(again.code).toBe(0);
    const v2 = await t.http.get('/v1/integrations/quire-sample').set(...org.admin.auth);
    expect(v2.body.version).toBe(2);
    const stored = await t.dataSource.query(`SELECT runtime, length(script) AS size FROM integrations WHERE name = 'quire-sample'`);
    expect(stored[0].runtime).toBe('v2');
    expect(stored[0].size).toBeGreaterThan(10_000);
  }, 180_000);

  it('lets only admins of the organization publish (404 outside, 403 below admin)', async () => {
    const outsider = await createUser(t);
    expectErrorEnvelope(
      await t.http
        .post(`/v1/integrations/${unique('n')}`)
        .set(...outsider.auth)
        .send(body()),
      404,
    );
    const member = await addMember(t, org, 'create');
    expectErrorEnvelope(
      await t.http
        .post(`/v1/integrations/${unique('n')}`)
        .set(...member.auth)
        .send(body()),
      403,
    );
  });

  it('refuses a name taken by another organization (409) and a bad name (400)', async () => {
    const name = unique('taken');
    expect(
      (
        await t.http
          .post(`/v1/integrations/${name}`)
          .set(...org.admin.auth)
          .send(body())
      ).status,
    ).toBe(200);
    const other = await createOrganization(t);
    expectErrorEnvelope(
      await t.http
        .post(`/v1/integrations/${name}`)
        .set(...other.admin.auth)
        .send(body({ organization: other.id })),
      409,
    );
    expectErrorEnvelope(
      await t.http
        .post(`/v1/integrations/bad%20name`)
        .set(...org.admin.auth)
        .send(body()),
      400,
    );
  });

  it('checks the limits of the body at their edges', async () => {
    const name = unique('limits');
    const post = (overrides: Record<string, unknown>) =>
      t.http
        .post(`/v1/integrations/${name}`)
        .set(...org.admin.auth)
        .send(body(overrides));
    expect((await post({ title: 'ab' })).status).toBe(200);
    expectErrorEnvelope(await post({ title: 'a' }), 400, /title/);
    expect((await post({ title: 'x'.repeat(30) })).status).toBe(200);
    expectErrorEnvelope(await post({ title: 'x'.repeat(31) }), 400, /title/);
    expect((await post({ description: 'x'.repeat(100) })).status).toBe(200);
    expectErrorEnvelope(await post({ description: 'x'.repeat(101) }), 400, /description/);
    expectErrorEnvelope(await post({ runtime: 'v3' }), 400, /runtime/);
    expectErrorEnvelope(await post({ scopes: ['everything'] }), 400, /scopes/);
    expectErrorEnvelope(await post({ blocks: [{ id: 'b', title: 'B' }] }), 400, /blocks.0.title/);
    expectErrorEnvelope(await post({ contentSources: [{ id: 'c', title: 'Cc' }] }), 400, /contentSources.0/);
    expectErrorEnvelope(await post({ secrets: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }), 400, /secrets/);
    expect((await post({ secrets: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'])) })).status).toBe(200);
    expectErrorEnvelope(await post({ title: null }), 400, /title/);
    expectErrorEnvelope(await post({ icon: Buffer.from('not an image').toString('base64') }), 400, /icon/);
    expect((await post({ script: `//${'x'.repeat(999_998)}` })).status).toBe(200);
    expectErrorEnvelope(await post({ script: 'x'.repeat(1_000_001) }), 400, /script/);
    expectErrorEnvelope(
      await post({ configurations: { account: { type: 'object', properties: { a: { type: 'nonsense' } } } } }),
      400,
      /configurations.account/,
    );
    expect((await post({ previewImages: [PNG.toString('base64'), PNG.toString('base64'), PNG.toString('base64')] })).status).toBe(200);
    expectErrorEnvelope(await post({ previewImages: [1, 2, 3, 4].map(() => PNG.toString('base64')) }), 400, /previewImages/);
    const got = await t.http.get(`/v1/integrations/${name}`).set(...org.admin.auth);
    expect(got.body.previewImages).toHaveLength(3);
    expect((await t.http.get(new URL(got.body.previewImages[2]).pathname)).status).toBe(200);
  });

  it('lists with the public filters and walks pages', async () => {
    const owner = await createOrganization(t);
    const prefix = unique('flt');
    const publish = (name: string, overrides: Record<string, unknown>) =>
      t.http
        .post(`/v1/integrations/${prefix}-${name}`)
        .set(...owner.admin.auth)
        .send(body({ organization: owner.id, visibility: 'public', ...overrides }));
    await publish('a', { categories: ['analytics'], blocks: [{ id: 'b', title: 'Block', urlUnfurl: ['https://example.com/embed'] }], target: 'space' });
    await publish('b', {
      categories: ['collaboration'],
      scopes: ['site:views:read'],
      contentSources: [{ id: 'c', title: 'Source', configuration: { componentId: 'c' } }],
    });
    await publish('c', { visibility: 'private' });
    const list = async (query: string, actor = owner.admin) => {
      const res = await t.http.get(`/v1/integrations?search=${prefix}&${query}`).set(...actor.auth);
      expectContract(res, 'listIntegrations');
      return (res.body.items as { name: string }[]).map((i) => i.name.slice(prefix.length + 1));
    };
    expect(await list('')).toEqual(['a', 'b', 'c']);
    expect(await list('', org.admin)).toEqual(['a', 'b']); // private to its owner
    expect(await list('category=analytics')).toEqual(['a']);
    expect(await list('blocks=true')).toEqual(['a']);
    expect(await list('blocks=false')).toEqual(['b', 'c']);
    expect(await list('contentSources=true')).toEqual(['b']);
    expect(await list('blockDomain=example.com')).toEqual(['a']);
    expect(await list('scope=site:views:read')).toEqual(['b']);
    expect(await list('target=space')).toEqual(['a', 'b', 'c']);
    expect(await list('target=site')).toEqual(['b', 'c']);
    expect(await list(`owner=${org.id}`)).toEqual([]);
    const first = await t.http.get(`/v1/integrations?search=${prefix}&limit=2`).set(...owner.admin.auth);
    expect(first.body.items).toHaveLength(2);
    const second = await t.http.get(`/v1/integrations?search=${prefix}&limit=2&page=${first.body.next.page}`).set(...owner.admin.auth);
    expect(second.body.items.map((i: { name: string }) => i.name)).toEqual([`${prefix}-c`]);
    expect(second.body.next).toBeUndefined();
    expectErrorEnvelope(await t.http.get(`/v1/integrations?limit=1001`).set(...owner.admin.auth), 400);
    expectErrorEnvelope(await t.http.get(`/v1/integrations?blockDomain=a/b`).set(...owner.admin.auth), 400);
    // A private integration is invisible to others.
    expectErrorEnvelope(await t.http.get(`/v1/integrations/${prefix}-c`).set(...org.admin.auth), 404);
  });

  it('unpublishes with the real CLI path (DELETE), admins only', async () => {
    const name = unique('gone');
    await t.http
      .post(`/v1/integrations/${name}`)
      .set(...org.admin.auth)
      .send(body());
    const member = await addMember(t, org, 'edit');
    expectErrorEnvelope(await t.http.delete(`/v1/integrations/${name}`).set(...member.auth), 403);
    expect((await t.http.delete(`/v1/integrations/${name}`).set(...org.admin.auth)).status).toBe(204);
    expectErrorEnvelope(await t.http.get(`/v1/integrations/${name}`).set(...org.admin.auth), 404);
  });
});
