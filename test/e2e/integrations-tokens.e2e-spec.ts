import { freePort } from '../../src/common/free-port';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { publishScript } from '../support/integration-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
    t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' });
    await t.app.listen(port, '127.0.0.1');
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
