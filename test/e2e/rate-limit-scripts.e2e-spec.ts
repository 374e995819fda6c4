import { freePort } from '../../src/common/free-port';
import { createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { publishScript } from '../support/integration-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * A script that calls the API back `n` times from its public endpoint: without a token (`mode=none`),
 * with a wrong one (`mode=bad`), or with its installation's token (`mode=token`), and answers the statuses.
 */
const CALLER = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const env = JSON.parse(form.get('environment'));
    const url = new URL(event.request.url);
    const n = Number(url.searchParams.get('n') || '1');
    const mode = url.searchParams.get('mode');
    const statuses = [];
    for (let i = 0; i < n; i++) {
      const headers = {};
      if (mode === 'bad') headers.authorization = 'Bearer quire_wrong_' + i;
      if (mode === 'token') headers.authorization = 'Bearer ' + env.apiTokens.installation;
      // A marker of the script's own making is replaced on the way out.
      headers['x-quire-script-call'] = '99999999999999.forged';
      const target = mode === 'token' ? env.installation.urls.location : env.apiEndpoint + '/v1/user';
      const res = await fetch(target, { headers });
      statuses.push(res.status);
    }
    return new Response(JSON.stringify(statuses), { headers: { 'content-type': 'application/json' } });
  },
};`;

describe('rate limits: calls from integration scripts', () => {
  let t: TestApp;
  let endpoint: string;
  let org: OrgFixture;
  const installations: Record<string, string> = {};

  const callFromScript = async (name: string, mode: string, n: number): Promise<number[]> => {
    // The visitor of the public endpoint comes through the proxy (TRUST_PROXY), from an address of its own.
    const res = await fetch(`${endpoint}/v1/integrations/${name}/installations/${installations[name]}/public/?mode=${mode}&n=${n}`, {
      headers: { 'x-forwarded-for': '198.51.100.10' },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as number[];
  };

  beforeAll(async () => {
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    t = await createTestApp(
      {
        PUBLIC_URL: endpoint,
        OUTBOUND_ALLOW_PRIVATE: 'true',
        AUTH_FAILURE_LIMIT: '5',
        RATE_LIMIT_PER_INSTALLATION: '12',
        RATE_LIMIT_PER_ADDRESS: '1000',
        // Loopback is the proxy in front of the visitors; the scripts call back from loopback too.
        TRUST_PROXY: 'loopback',
      },
      undefined,
      undefined,
      port,
    );
    org = await createOrganization(t);
    for (const name of ['caller-a', 'caller-b', 'caller-c']) {
      await publishScript(t, org.admin, org.id, name, CALLER);
      const res = await t.http
        .post(`/v1/integrations/${name}/installations`)
        .set(...org.admin.auth)
        .send({ organization: org.id });
      expect(res.status).toBe(201);
      installations[name] = res.body.id;
    }
  }, 120_000);
  afterAll(() => t?.close());

  it('ten unauthenticated calls from a script lock out neither local clients nor other integrations', async () => {
    expect(await callFromScript('caller-a', 'none', 10)).toEqual(Array(10).fill(401));
    expect(await callFromScript('caller-a', 'bad', 10)).toEqual(Array(10).fill(401));
    // A local client (same address as the server: loopback) is still answered 401, not 429.
    const local = await t.http.get('/v1/user').set('Authorization', 'Bearer quire_wrong_local');
    expectErrorEnvelope(local, 401);
    const user = await createUser(t);
    await t.http
      .get('/v1/user')
      .set(...user.auth)
      .expect(200);
    // Another integration's calls with its token pass.
    const other = await callFromScript('caller-b', 'token', 2);
    expect(other.every((status) => status !== 429 && status !== 401)).toBe(true);
  }, 60_000);

  it('counts a script’s calls per installation: past RATE_LIMIT_PER_INSTALLATION its calls get 429, other installations keep theirs', async () => {
    const statuses = await callFromScript('caller-c', 'token', 14);
    expect(statuses.slice(0, 12).every((status) => status !== 429)).toBe(true);
    expect(statuses.slice(12)).toEqual([429, 429]);
    // Installation b spent 2 of its 12 in the test above: 10 more pass, whatever c did.
    const b = await callFromScript('caller-b', 'token', 10);
    expect(b.every((status) => status !== 429)).toBe(true);
    // The server's address was not charged: a local client is fine.
    const user = await createUser(t);
    await t.http
      .get('/v1/user')
      .set(...user.auth)
      .expect(200);
  }, 60_000);

  it('a local client’s own failures still lock out its address, while script calls are not refused by that lockout', async () => {
    // Five failures reach the limit (the first test's local failure may have counted one already).
    for (let i = 0; i < 5; i++) expect([401, 429]).toContain((await t.http.get('/v1/user').set('Authorization', `Bearer quire_local_${i}`)).status);
    expectErrorEnvelope(await t.http.get('/v1/user').set('Authorization', 'Bearer quire_local_x'), 429, /failed authentications/);
    // The scripts call from the same address, yet are answered as themselves.
    expect(await callFromScript('caller-a', 'none', 2)).toEqual([401, 401]);
    // Installation a has not used its budget: its token passes (b and c spent theirs above).
    const [status] = await callFromScript('caller-a', 'token', 1);
    expect(status).not.toBe(429);
    expect(status).not.toBe(401);
  }, 60_000);
});
