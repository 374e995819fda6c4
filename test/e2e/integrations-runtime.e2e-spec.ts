import { compressToEncodedURIComponent } from 'lz-string';
import { freePort } from '../../src/common/free-port';
import { addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { ensureGitbookCli, expectExitedZero, gitbook } from '../support/integration-cli';
import { eventsOfType, publishScript, receiver, waitForEvent } from '../support/integration-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/** A script answering the public endpoint: `/loop` never returns, `/grow` allocates without bound. */
const HOSTILE = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    const url = event.request ? event.request.url : '';
    if (url.endsWith('/loop')) { while (true) {} }
    if (url.endsWith('/grow')) { const keep = []; while (true) keep.push(new Array(1e6).fill(Math.random())); }
    console.log('plain', event.type);
    return new Response('fine');
  },
};`;

describe('integrations: installations, events, render, public endpoint, sandbox limits', () => {
  let t: TestApp;
  let org: OrgFixture;
  let endpoint: string;
  let installationId: string;
  let space: { id: string };

  beforeAll(async () => {
    ensureGitbookCli();
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    t = await createTestApp(
      {
        PUBLIC_URL: endpoint,
        OUTBOUND_ALLOW_PRIVATE: 'true',
        INTEGRATION_SCRIPT_TIMEOUT_MS: '3000',
        INTEGRATION_SCRIPT_MEMORY_MB: '200',
        JOBS_ENABLED: 'true',
      },
      undefined,
      undefined,
      port,
    );
    org = await createOrganization(t);
    space = await createSpace(t, org);
    const run = await gitbook('quire-sample', ['publish'], { endpoint, token: org.admin.token, organization: org.id });
    expectExitedZero(run);
  }, 300_000);
  // The sample's name is unique on the server, and the next file of this worker (same database) may publish it too.
  afterAll(async () => {
    if (org) await t.http.delete('/v1/integrations/quire-sample').set(...org.admin.auth);
    await t?.close();
  });

  it('installs on an organization (admins only), pending until configured; the setup event runs the script and keeps its console output', async () => {
    const outsider = await createUser(t);
    expectErrorEnvelope(
      await t.http
        .post('/v1/integrations/quire-sample/installations')
        .set(...outsider.auth)
        .send({ organization: org.id }),
      404,
    );
    const member = await addMember(t, org, 'edit');
    expectErrorEnvelope(
      await t.http
        .post('/v1/integrations/quire-sample/installations')
        .set(...member.auth)
        .send({ organization: org.id }),
      403,
    );

    const res = await t.http
      .post('/v1/integrations/quire-sample/installations')
      .set(...org.admin.auth)
      .send({ organization: org.id });
    expectContract(res, 'installIntegration');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', configuration: {}, target: { organization: org.id }, spaces: 0 });
    installationId = res.body.id;

    const [setup] = await eventsOfType(t, org.admin, 'quire-sample', 'installation_setup');
    const delivered = await waitForEvent(t, org.admin, 'quire-sample', setup.id);
    expect(delivered.event).toMatchObject({ status: 'success', payload: { type: 'installation_setup', installationId, status: 'pending' } });
    expect(delivered.trace.logs.map((l) => l.message)).toContain('installation_setup pending for quire-sample');
  }, 60_000);

  it('validates the configuration against the manifest schema; a change emits installation_setup with the previous state', async () => {
    const patch = (body: object) =>
      t.http
        .patch(`/v1/integrations/quire-sample/installations/${installationId}`)
        .set(...org.admin.auth)
        .send(body);
    expectErrorEnvelope(await patch({ configuration: {} }), 400, /greeting/);
    expectErrorEnvelope(await patch({ configuration: { greeting: 5 } }), 400, /greeting/);
    const ok = await patch({ configuration: { greeting: 'hey' }, externalIds: ['ext-1'] });
    expectContract(ok, 'updateIntegrationInstallation');
    expect(ok.body).toMatchObject({ status: 'active', configuration: { greeting: 'hey' }, externalIds: ['ext-1'] });
    expectErrorEnvelope(await patch({ externalIds: ['1', '2', '3', '4', '5', '6'] }), 400, /externalIds/);

    const [latest] = await eventsOfType(t, org.admin, 'quire-sample', 'installation_setup');
    const delivered = await waitForEvent(t, org.admin, 'quire-sample', latest.id);
    expect(delivered.event.payload).toMatchObject({ status: 'active', previous: { status: 'pending' } });
    expect(delivered.trace.logs.map((l) => l.message)).toContain('installation_setup active for quire-sample');

    const list = await t.http.get('/v1/integrations/quire-sample/installations?externalId=ext-1').set(...org.admin.auth);
    expectContract(list, 'listIntegrationInstallations');
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([installationId]);
    const none = await t.http.get('/v1/integrations/quire-sample/installations?externalId=nope').set(...org.admin.auth);
    expect(none.body.items).toEqual([]);
  }, 60_000);

  it('installs on a space of the organization (404 for another organization’s space), lists with expand', async () => {
    const other = await createOrganization(t);
    const foreign = await createSpace(t, other);
    const url = `/v1/integrations/quire-sample/installations/${installationId}/spaces`;
    expectErrorEnvelope(
      await t.http
        .post(url)
        .set(...org.admin.auth)
        .send({ space: foreign.id }),
      404,
    );
    const res = await t.http
      .post(url)
      .set(...org.admin.auth)
      .send({ space: space.id });
    expectContract(res, 'installIntegrationOnSpace');
    expect(res.body).toMatchObject({ integration: 'quire-sample', installation: installationId, space: space.id, status: 'active' });
    const expanded = await t.http.get(`/v1/integrations/quire-sample/spaces?extended=true`).set(...org.admin.auth);
    expectContract(expanded, 'listIntegrationSpaceInstallations');
    expect(expanded.body.items[0].space).toMatchObject({ object: 'space', id: space.id });
    const patched = await t.http
      .patch(`${url}/${space.id}`)
      .set(...org.admin.auth)
      .send({ configuration: { enabled: true } });
    expectContract(patched, 'updateIntegrationSpaceInstallation');
    expectErrorEnvelope(
      await t.http
        .patch(`${url}/${space.id}`)
        .set(...org.admin.auth)
        .send({ configuration: { enabled: 'yes' } }),
      400,
      /enabled/,
    );
    const [setup] = await eventsOfType(t, org.admin, 'quire-sample', 'space_installation_setup');
    const delivered = await waitForEvent(t, org.admin, 'quire-sample', setup.id);
    expect(delivered.event.payload).toMatchObject({ spaceId: space.id, status: 'active', previous: { status: 'active' } });
    expect(delivered.trace.logs.map((l) => l.message)).toContain('space_installation_setup active');
    const installation = await t.http.get(`/v1/integrations/quire-sample/installations/${installationId}`).set(...org.admin.auth);
    expect(installation.body.spaces).toBe(1);
  }, 60_000);

  it('renders a block by POST and by GET (LZ-compressed), and an action round-trips with the state', async () => {
    const request = { componentId: 'counter', props: {}, context: { type: 'document', spaceId: space.id, editable: true, theme: 'light' } };
    const res = await t.http
      .post('/v1/integrations/quire-sample/render')
      .set(...org.admin.auth)
      .send(request);
    expectContract(res, 'renderIntegrationUIWithPost');
    expect(res.body).toMatchObject({ type: 'element', state: { count: 0 }, element: { type: 'block', children: [{ type: 'button', label: 'hey 0' }] } });

    const pressed = await t.http
      .post('/v1/integrations/quire-sample/render')
      .set(...org.admin.auth)
      .send({ ...request, state: res.body.state, action: { action: 'increment' } });
    expect(pressed.body.element.children[0].label).toBe('hey 1');

    const get = await t.http
      .get(`/v1/integrations/quire-sample/render?request=${compressToEncodedURIComponent(JSON.stringify(request))}`)
      .set(...org.admin.auth);
    expectContract(get, 'renderIntegrationUIWithGet');
    expect(get.body.element.children[0].label).toBe('hey 0');

    expectErrorEnvelope(await t.http.get(`/v1/integrations/quire-sample/render?request=not-lz`).set(...org.admin.auth), 400);
    expectErrorEnvelope(
      await t.http
        .post('/v1/integrations/quire-sample/render')
        .set(...org.admin.auth)
        .send({ ...request, componentId: 'nope' }),
      404,
    );
    const outsider = await createUser(t);
    expectErrorEnvelope(
      await t.http
        .post('/v1/integrations/quire-sample/render')
        .set(...outsider.auth)
        .send(request),
      404,
    );
  }, 60_000);

  it('answers the public endpoint anonymously through the script’s fetch handler', async () => {
    const res = await fetch(`${endpoint}/v1/integrations/quire-sample/public/hello?x=1`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/v1/integrations/quire-sample/public/hello', method: 'GET' });
    const post = await fetch(`${endpoint}/v1/integrations/quire-sample/installations/${installationId}/public/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(await post.json()).toEqual({ path: `/v1/integrations/quire-sample/installations/${installationId}/public/form`, method: 'POST' });
  }, 60_000);

  it("leaves the server's SIGTERM and SIGINT to the server: miniflare's exit hook would exit 143 at once, cutting the graceful shutdown", async () => {
    const exitsAtOnce = (listener: NodeJS.SignalsListener) => /process\.exit\(128 \+ (15|2)\)/.test(listener.toString());
    await publishScript(t, org.admin, org.id, 'signal-probe', 'export default { async fetch() { return new Response("ok"); } };');
    const res = await fetch(`${endpoint}/v1/integrations/signal-probe/public/x`);
    expect(res.status).toBe(200); // a workerd instance now runs for it
    expect([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')].filter(exitsAtOnce)).toEqual([]);
  });

  it('ends a script that loops forever and one that allocates without bound within 10 s; the server and other integrations stay healthy', async () => {
    await publishScript(t, org.admin, org.id, 'hostile-script', HOSTILE);
    for (const path of ['loop', 'grow']) {
      const started = Date.now();
      const res = await fetch(`${endpoint}/v1/integrations/hostile-script/public/${path}`);
      const elapsed = Date.now() - started;
      expect({ path, status: res.status, within10s: elapsed < 10_000 }).toEqual({ path, status: 502, within10s: true });
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        path === 'loop' ? /did not answer within 3000 ms/ : /more than 200 MB|did not answer/,
      );
      expect((await fetch(`${endpoint}/health/live`)).status).toBe(200);
    }
    // A loop inside an event delivery is recorded on the event, with the watchdog's reason in its trace.
    await publishScript(t, org.admin, org.id, 'loop-on-setup', 'export default { async fetch() { while (true) {} } };');
    await t.http
      .post('/v1/integrations/loop-on-setup/installations')
      .set(...org.admin.auth)
      .send({ organization: org.id })
      .expect(201);
    const [setup] = await eventsOfType(t, org.admin, 'loop-on-setup', 'installation_setup');
    const failed = await waitForEvent(t, org.admin, 'loop-on-setup', setup.id);
    expect(failed.event.status).toBe('failed');
    expect(failed.trace.logs).toEqual([expect.objectContaining({ level: 'error', message: 'the script did not answer within 3000 ms' })]);
    // The same integration answers again (a fresh instance), and the others never noticed.
    expect(await (await fetch(`${endpoint}/v1/integrations/hostile-script/public/ok`)).text()).toBe('fine');
    const other = await fetch(`${endpoint}/v1/integrations/quire-sample/public/still`);
    expect(other.status).toBe(200);
  }, 60_000);

  it('dispatches renders to the tunnel in development mode, then back to the script after DELETE …/dev', async () => {
    const tunnel = await receiver((_req, _body, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: 'element',
          state: {},
          props: {},
          element: { type: 'block', children: [{ type: 'button', label: 'from tunnel', onPress: { action: 'x' } }] },
        }),
      );
    });
    try {
      const member = await addMember(t, org, 'edit');
      expectErrorEnvelope(
        await t.http
          .put('/v1/integrations/quire-sample/dev')
          .set(...member.auth)
          .send({ tunnelUrl: tunnel.url }),
        403,
      );
      expectErrorEnvelope(
        await t.http
          .put('/v1/integrations/quire-sample/dev')
          .set(...org.admin.auth)
          .send({ tunnelUrl: 'not a url' }),
        400,
      );
      expect(
        (
          await t.http
            .put('/v1/integrations/quire-sample/dev')
            .set(...org.admin.auth)
            .send({ tunnelUrl: tunnel.url, all: false })
        ).status,
      ).toBe(204);
      const request = { componentId: 'counter', props: {}, context: { type: 'document', spaceId: space.id, editable: true } };
      const res = await t.http
        .post('/v1/integrations/quire-sample/render')
        .set(...org.admin.auth)
        .send(request);
      expect(res.body.element.children[0].label).toBe('from tunnel');
      expect(tunnel.received).toHaveLength(1);
      expect(tunnel.received[0].headers['content-type']).toMatch(/^multipart\/form-data/);
      expect(tunnel.received[0].body.toString()).toContain('"type":"ui_render"');
      expect((await t.http.delete('/v1/integrations/quire-sample/dev').set(...org.admin.auth)).status).toBe(205);
      const back = await t.http
        .post('/v1/integrations/quire-sample/render')
        .set(...org.admin.auth)
        .send(request);
      expect(back.body.element.children[0].label).toBe('hey 0');
      expect(tunnel.received).toHaveLength(1);
    } finally {
      await tunnel.close();
    }
  }, 60_000);

  it('lists events newest first with pagination (admins of the owner only)', async () => {
    const member = await addMember(t, org, 'edit');
    expectErrorEnvelope(await t.http.get('/v1/integrations/quire-sample/events').set(...member.auth), 403);
    const first = await t.http.get('/v1/integrations/quire-sample/events?limit=2').set(...org.admin.auth);
    expectContract(first, 'listIntegrationEvents');
    expect(first.body.items).toHaveLength(2);
    const second = await t.http.get(`/v1/integrations/quire-sample/events?limit=2&page=${first.body.next.page}`).set(...org.admin.auth);
    expect(new Date(second.body.items[0].createdAt).getTime()).toBeLessThanOrEqual(new Date(first.body.items[1].createdAt).getTime());
    expectErrorEnvelope(await t.http.get('/v1/integrations/quire-sample/events/nope').set(...org.admin.auth), 404);
  });

  it('unpublishing uninstalls everywhere', async () => {
    expect((await t.http.delete('/v1/integrations/quire-sample').set(...org.admin.auth)).status).toBe(204);
    const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM integration_installations WHERE id = $1`, [installationId]);
    expect(rows[0].n).toBe(0);
    const spaces = await t.dataSource.query(`SELECT count(*)::int AS n FROM integration_space_installations WHERE installation_id = $1`, [installationId]);
    expect(spaces[0].n).toBe(0);
  });
});
