import { freePort } from '../../src/common/free-port';
import { addMember, createOrganization, OrgFixture, type Actor } from '../support/builders';
import { expectContract } from '../support/contract';
import { publishScript } from '../support/integration-fixtures';
import { createSite } from '../support/site-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

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
    t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true' });
    await t.app.listen(port, '127.0.0.1');
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
