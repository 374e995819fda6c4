import { IntegrationTokensService } from '../../src/modules/integrations/integration-tokens.service';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { publishScript } from '../support/integration-fixtures';
import { selfSignedCertificatePem } from '../support/org-admin-builders';
import { createSite } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The escapes of issue 31, each as an attacker tried it: an integration owned by organization A,
 * installed in B by an admin who also administers A and C. Its script token must stay inside its
 * installation in B, whatever that admin could do.
 */

const SCRIPT = 'export default { fetch() { return new Response("OK"); } };';
const SCHEMA = { type: 'object', properties: { isBeta: { type: 'boolean', description: 'Beta user' } }, additionalProperties: false };

describe('script tokens: the escapes of issue 31 stay shut', () => {
  let t: TestApp;
  let a: OrgFixture;
  let b: OrgFixture;
  let c: OrgFixture;
  let bSpace: { id: string };
  let cSpace: { id: string };
  let bSite: { id: string };

  beforeAll(async () => {
    t = await createTestApp();
    a = await createOrganization(t);
    b = await createOrganization(t, { admin: a.admin });
    c = await createOrganization(t, { admin: a.admin });
    bSpace = await createSpace(t, b);
    cSpace = await createSpace(t, c);
    bSite = await createSite(t, b);
  }, 60_000);
  afterAll(() => t?.close());

  const admin = () => a.admin;

  /** Publishes `name` in A, installs it in B on `bSpace` and `bSite`; answers a script token of that installation. */
  async function installed(name: string, scopes: string[], space: { id: string } = bSpace) {
    await publishScript(t, admin(), a.id, name, SCRIPT, { scopes });
    const installation = await t.http
      .post(`/v1/integrations/${name}/installations`)
      .set(...admin().auth)
      .send({ organization: b.id })
      .expect(201);
    const id = installation.body.id as string;
    const base = `/v1/integrations/${name}/installations/${id}`;
    await t.http
      .post(`${base}/spaces`)
      .set(...admin().auth)
      .send({ space: space.id })
      .expect(201);
    await t.http
      .post(`${base}/sites`)
      .set(...admin().auth)
      .send({ siteId: bSite.id })
      .expect(201);
    const [{ id: integrationId }] = await t.dataSource.query(`SELECT id FROM integrations WHERE name = $1`, [name]);
    const [token] = await t.app.get(IntegrationTokensService).mint(integrationId, id);
    return { id, base, token, auth: ['Authorization', `Bearer ${token}`] as [string, string] };
  }

  const refused = (status: number) => expect([403, 404]).toContain(status);

  it('cannot install itself into another organization its installer administers', async () => {
    const script = await installed('escape-install', ['space:content:read']);
    const res = await t.http
      .post('/v1/integrations/escape-install/installations')
      .set(...script.auth)
      .send({ organization: c.id });
    refused(res.status);
    expectErrorEnvelope(res, res.status);
    const rows = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM integration_installations n JOIN integrations i ON i.id = n.integration_id WHERE i.name = 'escape-install' AND n.organization_id = $1`,
      [c.id],
    );
    expect(rows[0].n).toBe(0);
  });

  it('cannot widen its own installation (selections), only configure it', async () => {
    const script = await installed('escape-widen', ['space:content:read']);
    for (const body of [{ space_selection: 'all' }, { site_selection: 'all' }, { configuration: {}, space_selection: 'all' }]) {
      expectErrorEnvelope(
        await t.http
          .patch(script.base)
          .set(...script.auth)
          .send(body),
        403,
        /space_selection|site_selection/,
      );
    }
    const [row] = await t.dataSource.query(`SELECT space_selection, site_selection FROM integration_installations WHERE id = $1`, [script.id]);
    expect(row).toEqual({ space_selection: 'selected', site_selection: 'selected' });
    // Nor add a space to its selection.
    const other = await createSpace(t, b);
    refused(
      (
        await t.http
          .post(`${script.base}/spaces`)
          .set(...script.auth)
          .send({ space: other.id })
      ).status,
    );
    // What it may change: its configuration and external ids.
    const ok = await t.http
      .patch(script.base)
      .set(...script.auth)
      .send({ configuration: {}, externalIds: ['ext-1'] })
      .expect(200);
    expect(ok.body.externalIds).toEqual(['ext-1']);
  });

  it('a republish asking for more leaves the installation on its granted scopes until an admin of the organization grants them', async () => {
    const script = await installed('escape-republish', ['site:adaptive:read']);
    const put = () =>
      t.http
        .put(`/v1/orgs/${b.id}/sites/${bSite.id}/adaptive-schema`)
        .set(...script.auth)
        .send({ jsonSchema: SCHEMA });
    expectErrorEnvelope(await put(), 403);
    // The owner's admin republishes with a write scope: the current token does not gain it.
    await publishScript(t, admin(), a.id, 'escape-republish', SCRIPT, { scopes: ['site:adaptive:read', 'site:adaptive:write'] });
    expectErrorEnvelope(await put(), 403);
    const shown = await t.http
      .get(script.base)
      .set(...b.admin.auth)
      .expect(200);
    expectContract(shown, 'getIntegrationInstallationById');
    expect(shown.body['x-quire-scopes']).toEqual({
      granted: ['site:adaptive:read'],
      requested: ['site:adaptive:read', 'site:adaptive:write'],
      consent: 'required',
    });
    // A script cannot grant itself the scope; an admin of B can.
    expectErrorEnvelope(
      await t.http
        .post(`${script.base}/scopes`)
        .set(...script.auth)
        .send({ scopes: ['site:adaptive:read', 'site:adaptive:write'] }),
      403,
    );
    const granted = await t.http
      .post(`${script.base}/scopes`)
      .set(...b.admin.auth)
      .send({ scopes: ['site:adaptive:read', 'site:adaptive:write', 'openapi:write'] })
      .expect(200);
    expectContract(granted, 'getIntegrationInstallationById');
    expect(granted.body['x-quire-scopes']).toEqual({
      granted: ['site:adaptive:read', 'site:adaptive:write'],
      requested: ['site:adaptive:read', 'site:adaptive:write'],
      consent: 'granted',
    });
    expect((await put()).status).toBe(200);
    // Fewer scopes on republish take effect at once.
    await publishScript(t, admin(), a.id, 'escape-republish', SCRIPT, { scopes: ['site:adaptive:read'] });
    expectErrorEnvelope(await put(), 403);
    expect((await t.http.get(script.base).set(...b.admin.auth)).body['x-quire-scopes']).toMatchObject({ granted: ['site:adaptive:read'], consent: 'granted' });
  });

  it('a republish asking for site:script:inject injects nothing until an admin grants it', async () => {
    const space = await createSpace(t, b);
    const script = await installed('escape-inject', [], space);
    const injected = async () =>
      (
        await t.http
          .get(`/v1/spaces/${space.id}/integration-scripts`)
          .set(...b.admin.auth)
          .expect(200)
      ).body as { script: string; cookies: boolean }[];
    await publishScript(t, admin(), a.id, 'escape-inject', SCRIPT, { scopes: ['site:script:inject', 'site:script:cookies'] });
    expect(await injected()).toEqual([]);
    await t.http
      .post(`${script.base}/scopes`)
      .set(...b.admin.auth)
      .send({ scopes: ['site:script:inject'] })
      .expect(200);
    expect(await injected()).toEqual([{ script: expect.stringContaining('/installations/'), cookies: false }]);
  });

  it('grants are checked: admins only, scopes from the public list', async () => {
    const script = await installed('escape-grants', ['space:content:read']);
    expectErrorEnvelope(
      await t.http
        .post(`${script.base}/scopes`)
        .set(...b.admin.auth)
        .send({ scopes: ['everything'] }),
      400,
    );
    expectErrorEnvelope(
      await t.http
        .post(`${script.base}/scopes`)
        .set(...b.admin.auth)
        .send({}),
      400,
    );
    const outsider = await createOrganization(t);
    expectErrorEnvelope(
      await t.http
        .post(`${script.base}/scopes`)
        .set(...outsider.admin.auth)
        .send({ scopes: [] }),
      404,
    );
  });

  it('cannot turn on development mode, for all organizations or its own', async () => {
    await installed('escape-dev', ['space:content:read']);
    const script = await installed('escape-dev-2', ['space:content:write']);
    for (const all of [true, false]) {
      expectErrorEnvelope(
        await t.http
          .put('/v1/integrations/escape-dev-2/dev')
          .set(...script.auth)
          .send({ tunnelUrl: 'https://tunnel.example.com', all }),
        403,
      );
    }
    const [row] = await t.dataSource.query(`SELECT dev_all, dev_tunnel_url FROM integrations WHERE name = 'escape-dev-2'`);
    expect(row).toEqual({ dev_all: false, dev_tunnel_url: null });
  });

  it('cannot transfer or move a space of its installation to another organization (the body names it)', async () => {
    const victim = await createSpace(t, b);
    const script = await installed('escape-transfer', ['space:content:read', 'space:content:write', 'space:metadata:write'], victim);
    refused(
      (
        await t.http
          .post(`/v1/spaces/${victim.id}/transfer`)
          .set(...script.auth)
          .send({ organization: c.id })
      ).status,
    );
    refused(
      (
        await t.http
          .post(`/v1/spaces/${victim.id}/transfer`)
          .set(...script.auth)
          .send({ organization: b.id })
      ).status,
    );
    const [row] = await t.dataSource.query(`SELECT organization_id FROM spaces WHERE id = $1`, [victim.id]);
    expect(row.organization_id).toBe(b.id);
    // Nor reach C's space at all.
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${cSpace.id}`).set(...script.auth), 404);
  });

  it('with no scopes reads its own installation and nothing of the organization: members, spaces, SAML, OpenAPI text', async () => {
    const certificate = await selfSignedCertificatePem();
    await t.http
      .post(`/v1/orgs/${b.id}/saml`)
      .set(...b.admin.auth)
      .send({ label: 'Okta', entityID: 'http://www.okta.com/exk1', certificate, ssoURL: 'https://acme.okta.com/app/sso/saml' })
      .expect(201);
    const spec = JSON.stringify({ openapi: '3.0.0', info: { title: 'Secret API', version: '1' }, paths: {} });
    await t.http
      .post(`/v1/orgs/${b.id}/openapi`)
      .set(...b.admin.auth)
      .send({ slug: 'secret', source: { text: spec } })
      .expect(201);
    const script = await installed('escape-zero', []);
    await t.dataSource.query(`UPDATE integration_installations SET space_selection = 'all', site_selection = 'all' WHERE id = $1`, [script.id]);
    const reads = [
      `/v1/orgs/${b.id}/members`,
      `/v1/orgs/${b.id}/spaces`,
      `/v1/orgs/${b.id}/saml`,
      `/v1/orgs/${b.id}/openapi`,
      `/v1/orgs/${b.id}/openapi/secret/versions/latest/content/raw`,
      `/v1/orgs/${b.id}`,
      `/v1/spaces/${bSpace.id}`,
      `/v1/spaces/${bSpace.id}/content`,
    ];
    for (const path of reads) {
      // The installer reads each one; the script, none.
      expect([path, (await t.http.get(path).set(...admin().auth)).status]).toEqual([path, 200]);
      const res = await t.http.get(path).set(...script.auth);
      expect([path, res.status]).toEqual([path, 403]);
      expect(JSON.stringify(res.body)).not.toMatch(/BEGIN CERTIFICATE|Secret API|@example\.com/);
    }
    const own = await t.http
      .get(script.base)
      .set(...script.auth)
      .expect(200);
    expect(own.body.id).toBe(script.id);
    const list = await t.http
      .get('/v1/integrations/escape-zero/installations')
      .set(...script.auth)
      .expect(200);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([script.id]);
    // Another integration's installations are beyond it, even in its own organization.
    await installed('escape-neighbour', []);
    expectErrorEnvelope(await t.http.get('/v1/integrations/escape-neighbour/installations').set(...script.auth), 403);
    // Its space installations by id, not the spaces themselves (their titles need a space scope).
    const spaces = await t.http
      .get(`${script.base}/spaces`)
      .set(...script.auth)
      .expect(200);
    expect(spaces.body.items.map((i: { space: unknown }) => i.space)).toEqual([bSpace.id]);
    expectErrorEnvelope(await t.http.get(`${script.base}/spaces?extended=true`).set(...script.auth), 403);
    expectErrorEnvelope(await t.http.get('/v1/integrations/escape-zero/spaces?extended=true').set(...script.auth), 403);
  });

  it('updates its own space and site installations (a save action), not those it is not installed on', async () => {
    const script = await installed('escape-save', []);
    const space = await t.http
      .patch(`${script.base}/spaces/${bSpace.id}`)
      .set(...script.auth)
      .send({ configuration: {}, externalIds: ['space-ext'] });
    expect([space.status, space.body.externalIds]).toEqual([200, ['space-ext']]);
    expectContract(space, 'updateIntegrationSpaceInstallation');
    const site = await t.http
      .patch(`${script.base}/sites/${bSite.id}`)
      .set(...script.auth)
      .send({ configuration: {}, externalIds: ['site-ext'] });
    expect([site.status, site.body.externalIds]).toEqual([200, ['site-ext']]);
    expectContract(site, 'updateIntegrationSiteInstallation');
    expect((await t.http.get(`${script.base}/spaces/${bSpace.id}`).set(...script.auth)).status).toBe(200);
    const notCovered = await createSpace(t, b);
    expectErrorEnvelope(
      await t.http
        .patch(`${script.base}/spaces/${notCovered.id}`)
        .set(...script.auth)
        .send({ configuration: {} }),
      404,
    );
  });
});
