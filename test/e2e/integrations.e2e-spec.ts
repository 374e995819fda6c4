import { freePort } from '../../src/common/free-port';
import { type Actor, addMember, createOrganization, createUser, OrgFixture, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { publishScript } from '../support/integration-fixtures';
import { createSite } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import type { AddressInfo } from 'node:net';
import { ensureGitbookCli, expectExitedZero, gitbook } from '../support/integration-cli';

/**
 * Answers its public endpoint with the configuration its environment carries and the installation as
 * the API shows it to the script's own token.
 */
const READER = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const env = JSON.parse(form.get('environment'));
    const res = await fetch(env.installation.urls.location, { headers: { authorization: 'Bearer ' + env.apiTokens.installation } });
    return new Response(JSON.stringify({ environment: env.installation.configuration, api: await res.json() }), { headers: { 'content-type': 'application/json' } });
  },
};`;

const SCHEMA = (field: string) => ({
  properties: { [field]: { type: 'string' }, apiKey: { type: 'string', writeOnly: true } },
  required: [field, 'apiKey'],
});

describe('integrations: who reads an installation’s configuration', () => {
  let t: TestApp;
  let endpoint: string;
  let org: OrgFixture;
  let installationId: string;
  let space: { id: string };
  let site: { id: string };
  const name = 'config-reader';
  const base = () => `/v1/integrations/${name}/installations/${installationId}`;

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true' }, undefined, undefined, port);
    org = await createOrganization(t);
    space = await createSpace(t, org);
    site = await createSite(t, org);
    await publishScript(t, org.admin, org.id, name, READER, {
      target: 'all',
      configurations: { account: SCHEMA('label'), space: SCHEMA('spaceLabel'), site: SCHEMA('siteLabel') },
    });
    const installed = await t.http
      .post(`/v1/integrations/${name}/installations`)
      .set(...org.admin.auth)
      .send({ organization: org.id });
    expect(installed.status).toBe(201);
    installationId = installed.body.id;
    const configured = await t.http
      .patch(base())
      .set(...org.admin.auth)
      .send({ configuration: { label: 'shown', apiKey: 'sk_account_secret' } });
    expect(configured.status).toBe(200);
    // Written, but never shown back, not even to the admin who wrote it.
    expect(configured.body.configuration).toEqual({ label: 'shown' });
    await t.http
      .post(`${base()}/spaces`)
      .set(...org.admin.auth)
      .send({ space: space.id })
      .expect(201);
    await t.http
      .patch(`${base()}/spaces/${space.id}`)
      .set(...org.admin.auth)
      .send({ configuration: { spaceLabel: 'space shown', apiKey: 'sk_space_secret' } })
      .expect(200);
    await t.http
      .post(`${base()}/sites`)
      .set(...org.admin.auth)
      .send({ siteId: site.id })
      .expect(201);
    await t.http
      .patch(`${base()}/sites/${site.id}`)
      .set(...org.admin.auth)
      .send({ configuration: { siteLabel: 'site shown', apiKey: 'sk_site_secret' } })
      .expect(200);
  }, 120_000);
  afterAll(() => t?.close());

  /** Every read route of the installation, as `actor`: each body checked against the public schema. */
  const readAll = async (actor: Actor) => {
    const reads = [
      ['getIntegrationInstallationById', base()],
      ['listIntegrationInstallations', `/v1/integrations/${name}/installations`],
      ['listIntegrationInstallationSpaces', `${base()}/spaces`],
      ['listIntegrationSpaceInstallations', `/v1/integrations/${name}/spaces`],
      ['getIntegrationSpaceInstallation', `${base()}/spaces/${space.id}`],
      ['listIntegrationInstallationSites', `${base()}/sites`],
      ['listIntegrationSiteInstallations', `/v1/integrations/${name}/sites`],
      ['getIntegrationSiteInstallation', `${base()}/sites/${site.id}`],
    ] as const;
    const configurations: Record<string, unknown[]> = {};
    for (const [operation, url] of reads) {
      const res = await t.http.get(url).set(...actor.auth);
      if (res.status !== 200) {
        configurations[operation] = [`status ${res.status}`];
        continue;
      }
      expectContract(res, operation);
      const items = 'items' in res.body ? (res.body.items as { configuration: unknown }[]) : [res.body as { configuration: unknown }];
      configurations[operation] = items.map((item) => item.configuration);
    }
    return configurations;
  };

  it('admins read the configuration without its write-only fields', async () => {
    expect(await readAll(org.admin)).toEqual({
      getIntegrationInstallationById: [{ label: 'shown' }],
      listIntegrationInstallations: [{ label: 'shown' }],
      listIntegrationInstallationSpaces: [{ spaceLabel: 'space shown' }],
      listIntegrationSpaceInstallations: [{ spaceLabel: 'space shown' }],
      getIntegrationSpaceInstallation: [{ spaceLabel: 'space shown' }],
      listIntegrationInstallationSites: [{ siteLabel: 'site shown' }],
      listIntegrationSiteInstallations: [{ siteLabel: 'site shown' }],
      getIntegrationSiteInstallation: [{ siteLabel: 'site shown' }],
    });
  });

  it.each([
    ['a guest', null],
    ['a reader', 'read'],
    ['a member below admin', 'edit'],
  ] as const)('%s sees installations without their configuration', async (_title, role) => {
    const actor = await addMember(t, org, role);
    const seen = await readAll(actor);
    for (const [operation, configurations] of Object.entries(seen)) {
      for (const configuration of configurations) {
        // A route the caller may not read at all (a guest and the space) is fine; one it reads shows `{}`.
        if (typeof configuration === 'string') expect({ operation, configuration }).toMatchObject({ configuration: expect.stringMatching(/^status 40[34]$/) });
        else expect({ operation, configuration }).toEqual({ operation, configuration: {} });
      }
    }
    // The reads that every member of the organization has show the installation itself.
    expect(seen.getIntegrationInstallationById).toEqual([{}]);
    expect(seen.listIntegrationInstallations).toEqual([{}]);
  });

  it('the script receives every field (write-only ones included) and reads its configuration through the API without them', async () => {
    const res = await fetch(`${endpoint}/v1/integrations/${name}/installations/${installationId}/public/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { environment: Record<string, unknown>; api: { configuration: Record<string, unknown> } };
    expect(body.environment).toEqual({ label: 'shown', apiKey: 'sk_account_secret' });
    expect(body.api.configuration).toEqual({ label: 'shown' });
  }, 60_000);

  it('a PATCH that leaves a write-only field out keeps it; null clears it', async () => {
    const res = await t.http
      .patch(base())
      .set(...org.admin.auth)
      .send({ configuration: { label: 'renamed' } });
    expect(res.status).toBe(200);
    expect(res.body.configuration).toEqual({ label: 'renamed' });
    const [row] = await t.dataSource.query(`SELECT configuration FROM integration_installations WHERE id = $1`, [installationId]);
    expect(row.configuration.label).toBe('renamed');
    expect(JSON.stringify(row.configuration)).toContain('sk_account_secret');
    // Clearing a required write-only field fails validation like any missing field.
    const cleared = await t.http
      .patch(base())
      .set(...org.admin.auth)
      .send({ configuration: { label: 'renamed', apiKey: null } });
    expect(cleared.status).toBe(400);
    expect(cleared.body.error.message).toMatch(/apiKey/);
    // The previous configuration in the setup event is not shown to the integration's owners.
    const events = await t.http.get(`/v1/integrations/${name}/events?limit=100`).set(...org.admin.auth);
    expect(JSON.stringify(events.body)).not.toContain('sk_account_secret');
    expect(JSON.stringify(events.body)).not.toContain('sk_space_secret');
  });
});

/** On its public endpoint, calls Quire back with its installation token and reports the statuses. */
const PROBE = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const env = JSON.parse(form.get('environment'));
    const targets = JSON.parse(new URL(event.request.url).searchParams.get('calls'));
    const results = [];
    for (const [method, path] of targets) {
      const res = await fetch(env.apiEndpoint + path, {
        method,
        headers: { authorization: 'Bearer ' + env.apiTokens.installation, 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : JSON.stringify({ title: 'Renamed by a script' }),
      });
      results.push(res.status);
    }
    return Response.json({ results, integrationToken: env.apiTokens.integration });
  },
};`;

/** Fails its first delivery (500), then succeeds: the queue must retry it. */
const FLAKY = `
let calls = 0;
export default {
  async fetch() {
    calls += 1;
    console.log('attempt ' + calls);
    return calls === 1 ? new Response('not yet', { status: 500 }) : new Response('OK');
  },
};`;

describe('integrations: script tokens, scoped to the installation and the manifest', () => {
  let t: TestApp;
  let endpoint: string;
  let org: OrgFixture;
  let other: OrgFixture;
  let installationId: string;
  let mine: { id: string };
  let notInstalled: { id: string };
  let foreign: { id: string };

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' }, undefined, undefined, port);
    // The same admin administers both organizations: the token must still not reach the other one.
    org = await createOrganization(t);
    other = await createOrganization(t, { admin: org.admin });
    mine = await createSpace(t, org);
    notInstalled = await createSpace(t, org);
    foreign = await createSpace(t, other);
    await publishScript(t, org.admin, org.id, 'token-probe', PROBE, { scopes: ['space:content:read'] });
    const installation = await t.http
      .post('/v1/integrations/token-probe/installations')
      .set(...org.admin.auth)
      .send({ organization: org.id });
    installationId = installation.body.id;
    await t.http
      .post(`/v1/integrations/token-probe/installations/${installationId}/spaces`)
      .set(...org.admin.auth)
      .send({ space: mine.id })
      .expect(201);
  }, 120_000);
  afterAll(() => t?.close());

  const probe = async (calls: [string, string][]) => {
    const res = await fetch(
      `${endpoint}/v1/integrations/token-probe/installations/${installationId}/public/?calls=${encodeURIComponent(JSON.stringify(calls))}`,
    );
    expect(res.status).toBe(200);
    return (await res.json()) as { results: number[]; integrationToken: string };
  };

  it('reads an installed space of its organization, and nothing of another organization (404) even when the installer administers it; the organization itself is not a script route (403)', async () => {
    const { results } = await probe([
      ['GET', `/v1/spaces/${mine.id}`],
      ['GET', `/v1/spaces/${foreign.id}`],
      ['GET', `/v1/orgs/${other.id}`],
      ['GET', `/v1/orgs/${org.id}`],
    ]);
    expect(results).toEqual([200, 404, 404, 403]);
  }, 60_000);

  it('cannot reach a space the installation does not cover (404), nor write beyond its read scope (403), nor routes outside any installation (403)', async () => {
    const { results } = await probe([
      ['GET', `/v1/spaces/${notInstalled.id}`],
      ['PATCH', `/v1/spaces/${mine.id}`],
      ['GET', `/v1/user`],
      ['GET', `/v1/orgs`],
    ]);
    expect(results).toEqual([404, 403, 403, 403]);
    const rows = await t.dataSource.query(`SELECT title FROM spaces WHERE id = $1`, [mine.id]);
    expect(rows[0].title).not.toBe('Renamed by a script');
  }, 60_000);

  it('script tokens are short-lived secrets unknown to the user token table; an expired one answers 401', async () => {
    const { integrationToken } = await probe([]);
    expect(integrationToken).toMatch(/^qit_/);
    const stored = await t.dataSource.query(`SELECT count(*)::int AS n FROM api_tokens WHERE token_hash = encode(sha256($1::bytea), 'hex')`, [
      integrationToken,
    ]);
    expect(stored[0].n).toBe(0);
    expect((await t.http.get(`/v1/spaces/${mine.id}`).set('Authorization', `Bearer ${integrationToken}`)).status).toBe(200);
    await t.dataSource.query(`UPDATE integration_tokens SET expires_at = now() - interval '1 second'`);
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${mine.id}`).set('Authorization', `Bearer ${integrationToken}`), 401);
  }, 60_000);

  it('retries a delivery that failed with a 5xx (at least once), keeping the last trace', async () => {
    await publishScript(t, org.admin, org.id, 'flaky-script', FLAKY);
    const installation = await t.http
      .post('/v1/integrations/flaky-script/installations')
      .set(...org.admin.auth)
      .send({ organization: org.id })
      .expect(201);
    const until = Date.now() + 40_000;
    let row: { status: string; attempts: number; logs: { message: string }[] } | undefined;
    while (Date.now() < until) {
      [row] = await t.dataSource.query(`SELECT status, attempts, logs FROM integration_events WHERE installation_id = $1`, [installation.body.id]);
      if (row?.status === 'success') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(row).toMatchObject({ status: 'success', attempts: 2 });
    expect(row!.logs.map((l) => l.message)).toEqual(['attempt 2']);
  }, 60_000);
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SCRIPT = 'export default { async fetch() { return new Response("ok"); } };';

describe('integrations: publish, discover, unpublish', () => {
  let t: TestApp;
  let org: OrgFixture;
  let endpoint: string;

  beforeAll(async () => {
    ensureGitbookCli();
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' });
    endpoint = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    org = await createOrganization(t);
  }, 300_000);
  // Integration names are unique on a server, and the files one test worker runs share its database: the next file
  // that publishes the sample (integrations-runtime) must find its name free.
  afterAll(async () => {
    if (org) await t.http.delete('/v1/integrations/quire-sample').set(...org.admin.auth);
    await t?.close();
  });

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
    expectExitedZero(run);
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
