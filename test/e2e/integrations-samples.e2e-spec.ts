import { createHmac } from 'node:crypto';
import { freePort } from '../../src/common/free-port';
import { newId } from '../../src/common/ids';
import { PublishedScriptsService } from '../../src/modules/integrations/published-scripts.service';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { ensureGitbookCli, gitbook, gitbookUntil, installCloudflaredStandIn } from '../support/integration-cli';
import { siteEvent } from '../support/insights-builders';
import { eventsOfType, receiver, waitForEvent } from '../support/integration-fixtures';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { DOCS_SITE, serveWebsite } from '../support/website-fixture';

/** The three sample integrations of the issue, written like GitBook's public ones, built and published by the real CLI. */
describe('integrations: sample integrations built and published with the GitBook CLI', () => {
  let t: TestApp;
  let endpoint: string;
  let org: OrgFixture;

  beforeAll(async () => {
    ensureGitbookCli();
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' }, undefined, undefined, port);
    org = await createOrganization(t);
    for (const sample of ['quire-webframe', 'quire-site-script', 'quire-webhook']) {
      const run = await gitbook(sample, ['publish'], { endpoint, token: org.admin.token, organization: org.id });
      expect({ sample, code: run.code, stderr: run.stderr.slice(-1000) }).toMatchObject({ sample, code: 0 });
    }
  }, 300_000);
  afterAll(() => t?.close());

  const install = async (name: string, configuration?: object) => {
    const res = await t.http
      .post(`/v1/integrations/${name}/installations`)
      .set(...org.admin.auth)
      .send({ organization: org.id })
      .expect(201);
    if (configuration)
      await t.http
        .patch(`/v1/integrations/${name}/installations/${res.body.id}`)
        .set(...org.admin.auth)
        .send({ configuration })
        .expect(200);
    return res.body.id as string;
  };

  it('webframe: the block renders a webframe whose page the integration serves from its public endpoint', async () => {
    const space = await createSpace(t, org);
    const installationId = await install('quire-webframe');
    await t.http
      .post(`/v1/integrations/quire-webframe/installations/${installationId}/spaces`)
      .set(...org.admin.auth)
      .send({ space: space.id })
      .expect(201);

    const blocks = await t.http.get(`/v1/spaces/${space.id}/integration-blocks`).set(...org.admin.auth);
    expect(blocks.status).toBe(200);
    expect(blocks.body).toEqual([
      { name: 'quire-webframe', blocks: [expect.objectContaining({ id: 'diagram', urlUnfurl: ['https://diagrams.example.com/'] })] },
    ]);
    const listed = await t.http.get(`/v1/spaces/${space.id}/integrations`).set(...org.admin.auth);
    expectContract(listed, 'listSpaceIntegrations');
    expect(listed.body.items.map((i: { name: string }) => i.name)).toEqual(['quire-webframe']);

    const res = await t.http
      .post('/v1/integrations/quire-webframe/render')
      .set(...org.admin.auth)
      .send({ componentId: 'diagram', props: {}, context: { type: 'document', spaceId: space.id, editable: false } });
    expectContract(res, 'renderIntegrationUIWithPost');
    const frame = res.body.element.children[0];
    expect(frame).toMatchObject({ type: 'webframe', aspectRatio: 16 / 9 });
    expect(frame.source.url.startsWith(`${endpoint}/v1/integrations/quire-webframe/public/frame?`)).toBe(true);
    const page = await fetch(frame.source.url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<pre class="diagram">A --&#62; B</pre>');
  }, 60_000);

  it('published script: served to the sites it is installed on, from the site configuration', async () => {
    const siteId = newId();
    await t.dataSource.query(`INSERT INTO sites (id, organization_id, title) VALUES ($1, $2, 'Docs')`, [siteId, org.id]);
    const installationId = await install('quire-site-script');
    const space = await createSpace(t, org);
    expectErrorEnvelope(
      await t.http
        .post(`/v1/integrations/quire-site-script/installations/${installationId}/spaces`)
        .set(...org.admin.auth)
        .send({ space: space.id }),
      400,
      /target is site/,
    );
    const onSite = await t.http
      .post(`/v1/integrations/quire-site-script/installations/${installationId}/sites`)
      .set(...org.admin.auth)
      .send({ siteId });
    expectContract(onSite, 'installIntegrationOnSite');
    expect(onSite.body).toMatchObject({ site: siteId, status: 'pending' });
    expectErrorEnvelope(
      await t.http
        .patch(`/v1/integrations/quire-site-script/installations/${installationId}/sites/${siteId}`)
        .set(...org.admin.auth)
        .send({ configuration: {} }),
      400,
      /trackingId/,
    );
    const configured = await t.http
      .patch(`/v1/integrations/quire-site-script/installations/${installationId}/sites/${siteId}`)
      .set(...org.admin.auth)
      .send({ configuration: { trackingId: 'T-42' }, externalIds: ['site-ext'] });
    expectContract(configured, 'updateIntegrationSiteInstallation');
    const listed = await t.http.get('/v1/integrations/quire-site-script/sites?externalId=site-ext').set(...org.admin.auth);
    expectContract(listed, 'listIntegrationSiteInstallations');
    expect(listed.body.items).toHaveLength(1);
    const [setup] = await eventsOfType(t, org.admin, 'quire-site-script', 'site_installation_setup');
    expect((await waitForEvent(t, org.admin, 'quire-site-script', setup.id)).event.payload).toMatchObject({ siteId, status: 'active' });

    const scripts = await t.app.get(PublishedScriptsService).scriptsOf('site', siteId);
    expect(scripts).toEqual([
      {
        integration: 'quire-site-script',
        script: expect.stringMatching(/script\.js$/),
        contentSecurityPolicy: 'script-src https://tracker.example.com',
        cookies: false,
      },
    ]);
    // The site's published profile carries it (the sites module asks the SITE_SCRIPTS port).
    const profile = await t.http.get(`/v1/orgs/${org.id}/sites/${siteId}/published`).set(...org.admin.auth);
    expect(profile.status).toBe(200);
    expect(profile.body.scripts).toEqual([{ script: scripts[0].script, contentSecurityPolicy: 'script-src https://tracker.example.com', cookies: false }]);
    // A page view the site records becomes a `site_view` event for the installation (public shape).
    const viewed = await t.http
      .post(`/v1/orgs/${org.id}/sites/${siteId}/insights/events`)
      .set(...org.admin.auth)
      .send({ events: [siteEvent({ path: '/guide', page: 'page-7', referrer: 'https://ref.example/' }), siteEvent({ type: 'search_open' })] });
    expect(viewed.status).toBe(204);
    // Stored once: the one-statement path stores nothing when an installation listens; the transaction does.
    const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM insights_events WHERE site_id = $1`, [siteId]);
    expect(n).toBe(2);
    const views = await eventsOfType(t, org.admin, 'quire-site-script', 'site_view');
    expect(views).toHaveLength(1);
    expectPublicSchema(views[0].payload, 'SiteViewEvent');
    expect(views[0].payload).toMatchObject({
      installationId,
      siteId,
      pageId: 'page-7',
      url: 'https://docs.example.com/guide',
      referrer: 'https://ref.example/',
    });
    const js = await fetch(scripts[0].script);
    expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await js.text()).toBe(`window.quireTracker = { id: "T-42", site: "${siteId}" };`);
  }, 60_000);

  it('webhook: a signed POST to a receiver on space_content_updated, only where the space configuration enables it', async () => {
    const hook = await receiver((_req, _body, res) => res.end('ok'));
    const site = await serveWebsite(DOCS_SITE);
    try {
      const enabled = await createSpace(t, org);
      const disabled = await createSpace(t, org);
      const installationId = await install('quire-webhook', { webhookUrl: `${hook.url}/hook`, secret: 's3cret' });
      for (const space of [enabled, disabled]) {
        await t.http
          .post(`/v1/integrations/quire-webhook/installations/${installationId}/spaces`)
          .set(...org.admin.auth)
          .send({ space: space.id })
          .expect(201);
      }
      await t.http
        .patch(`/v1/integrations/quire-webhook/installations/${installationId}/spaces/${enabled.id}`)
        .set(...org.admin.auth)
        .send({ configuration: { enabled: true } })
        .expect(200);
      const revisions: Record<string, string> = {};
      for (const space of [enabled, disabled]) {
        const res = await t.http
          .post(`/v1/spaces/${space.id}/content/import`)
          .set(...org.admin.auth)
          .send({ url: `${site.origin}/docs/`, source: 'website' })
          .expect(201);
        revisions[space.id] = res.body.revision;
      }
      const updates = await eventsOfType(t, org.admin, 'quire-webhook', 'space_content_updated');
      expect(updates.map((e) => e.payload.spaceId).sort()).toEqual([enabled.id, disabled.id].sort());
      for (const update of updates) {
        const delivered = await waitForEvent(t, org.admin, 'quire-webhook', update.id);
        expect(delivered.event).toMatchObject({
          status: 'success',
          payload: { revisionId: revisions[update.payload.spaceId as string], updatedBy: [expect.objectContaining({ id: org.admin.user.id })] },
        });
        const expected = update.payload.spaceId === enabled.id ? `webhook sent for space ${enabled.id}: 200` : `webhook skipped for space ${disabled.id}`;
        expect(delivered.trace.logs.map((l) => l.message)).toContain(expected);
      }
      expect(hook.received).toHaveLength(1);
      const [call] = hook.received;
      expect(call.url).toBe('/hook');
      expect(JSON.parse(call.body.toString())).toEqual({ type: 'space_content_updated', spaceId: enabled.id, revisionId: revisions[enabled.id] });
      expect(call.headers['x-quire-signature']).toBe(`sha256=${createHmac('sha256', 's3cret').update(call.body).digest('hex')}`);

      // `gitbook tail` reads the same events and prints their traces.
      const tail = await gitbookUntil('quire-webhook', ['tail'], { endpoint, token: org.admin.token }, /webhook (sent|skipped) for space/);
      expect({ matched: tail.matched, output: tail.output.slice(-500) }).toMatchObject({ matched: true });
    } finally {
      await hook.close();
      await site.close();
    }
  }, 90_000);

  it('gitbook dev: the real CLI turns development mode on (PUT …/dev with its tunnel URL), which expires on its own', async () => {
    const tunnelUrl = installCloudflaredStandIn();
    const devMode = () => t.dataSource.query(`SELECT dev_tunnel_url, dev_expires_at FROM integrations WHERE name = 'quire-webframe'`);
    let seen = false;
    const run = gitbookUntil('quire-webframe', ['dev'], { endpoint, token: org.admin.token }, /Development mode enabled|will be dispatched/, 90_000);
    for (let i = 0; i < 180 && !seen; i++) {
      const [row] = await devMode();
      seen = row.dev_tunnel_url === tunnelUrl;
      if (!seen) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await run;
    expect(seen).toBe(true);
    const [row] = await devMode();
    const minutes = (new Date(row.dev_expires_at).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(50);
    expect(minutes).toBeLessThanOrEqual(60);
  }, 120_000);
});
