import { freePort } from '../../src/common/free-port';
import { createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { ensureGitbookCli, gitbook } from '../support/integration-cli';
import { eventsOfType } from '../support/integration-fixtures';
import { createReaderSite, ReaderSite, visitorJwt } from '../support/published-builders';
import { sitePath } from '../support/site-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Visitor authentication through an integration (`backend: "integration"`, issue 26 point 2), the
 * whole loop in the real sandbox with a fixture integration built and published by the real CLI
 * (`test/integrations/samples/quire-visitor-auth`): resolution → Quire's visitor-auth route → the
 * script's `fetch_visitor_authentication` redirects to the identity provider (played by the test) →
 * the provider sends the visitor to the site installation's public endpoint → the script signs a
 * JWT with the site installation's signing secret → resolution with that JWT answers the content.
 * Each organization's installation signs with its own secret: a JWT of one never opens the other's site.
 */

const NAME = 'quire-visitor-auth';
const IDP = 'https://idp.example.test/authorize';

describe('visitor authentication through an integration', () => {
  let t: TestApp;
  let endpoint: string;
  let publishedBase: string;
  const orgs: { org: OrgFixture; reader: ReaderSite; installationId: string }[] = [];

  beforeAll(async () => {
    ensureGitbookCli();
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
    publishedBase = `${endpoint}/sites`;
    t = await createTestApp(
      { PUBLIC_URL: endpoint, PUBLISHED_BASE_URL: publishedBase, OUTBOUND_ALLOW_PRIVATE: 'true', JOBS_ENABLED: 'true' },
      undefined,
      undefined,
      port,
    );
    const owner = await createOrganization(t);
    const run = await gitbook(NAME, ['publish'], { endpoint, token: owner.admin.token, organization: owner.id });
    if (run.code !== 0) throw new Error(`gitbook publish failed: ${run.stderr.slice(-1500)} ${run.stdout.slice(-1500)}`);
    // Two organizations install the same (public) integration on a visitor-auth site of theirs.
    for (const org of [owner, await createOrganization(t)]) {
      const reader = await createReaderSite(t, org, publishedBase, 'visitor-auth');
      await t.http
        .patch(`${sitePath(org, reader.site.id)}/publishing/auth`)
        .set(...org.admin.auth)
        .send({ backend: 'integration' })
        .expect(200);
      const installation = await t.http
        .post(`/v1/integrations/${NAME}/installations`)
        .set(...org.admin.auth)
        .send({ organization: org.id })
        .expect(201);
      const installationId = installation.body.id as string;
      await t.http
        .post(`/v1/integrations/${NAME}/installations/${installationId}/sites`)
        .set(...org.admin.auth)
        .send({ siteId: reader.site.id })
        .expect(201);
      const configured = await t.http
        .patch(`/v1/integrations/${NAME}/installations/${installationId}/sites/${reader.site.id}`)
        .set(...org.admin.auth)
        .send({ configuration: { authorize_url: IDP, site_url: reader.base } });
      expectContract(configured, 'updateIntegrationSiteInstallation');
      expect(configured.body.urls.publicEndpoint).toBe(`${endpoint}/v1/integrations/${NAME}/installations/${installationId}/sites/${reader.site.id}/public/`);
      orgs.push({ org, reader, installationId });
    }
  }, 300_000);
  afterAll(() => t?.close());

  const resolve = (url: string, body: object = {}) => t.http.post('/v1/urls/published').send({ url, ...body });
  const loginRoute = (installationId: string, siteId: string) =>
    `${endpoint}/v1/integrations/${NAME}/installations/${installationId}/sites/${siteId}/visitor-auth`;

  /** The visitor's whole trip from a refused resolution to a JWT, following each redirect by hand. */
  async function logIn(which: number, user: string, below: string): Promise<{ jwt: string; landing: URL }> {
    const { reader } = orgs[which];
    const refused = await resolve(`${reader.base}/${below}`, { redirectOnError: true }).expect(200);
    const toQuire = new URL(refused.body.redirect);
    const toIdp = await fetch(toQuire, { redirect: 'manual' });
    expect(toIdp.status).toBe(302);
    const idp = new URL(toIdp.headers.get('location')!);
    expect(`${idp.origin}${idp.pathname}`).toBe(IDP);
    // The identity provider (the test) sends the visitor back to the integration with a code.
    const back = new URL(idp.searchParams.get('redirect_uri')!);
    back.searchParams.set('code', user);
    back.searchParams.set('state', idp.searchParams.get('state')!);
    const toSite = await fetch(back, { redirect: 'manual' });
    expect(toSite.status).toBe(302);
    const landing = new URL(toSite.headers.get('location')!);
    return { jwt: landing.searchParams.get('jwt_token')!, landing };
  }

  it('sends a visitor without a JWT to Quire’s visitor-auth route with the location; an invalid JWT is 401 unless redirectOnError', async () => {
    const { reader, installationId } = orgs[0];
    const res = await resolve(`${reader.base}/getting-started/install`).expect(200);
    expectContract(res, 'resolvePublishedContentByUrl');
    expect(res.body).toEqual({
      target: 'external',
      site: reader.site.id,
      redirect: `${loginRoute(installationId, reader.site.id)}?location=%2Fgetting-started%2Finstall`,
    });
    const forged = await visitorJwt('not-the-site-installation-secret');
    expectErrorEnvelope(await resolve(`${reader.base}/getting-started/install`, { visitor: { jwtToken: forged } }), 401);
    const redirected = await resolve(`${reader.base}/getting-started/install`, { redirectOnError: true, visitor: { jwtToken: forged } }).expect(200);
    expect(redirected.body).toEqual(res.body);
    // The publishing auth names the integration it uses.
    const auth = await t.http
      .get(`${sitePath(orgs[0].org, reader.site.id)}/publishing/auth`)
      .set(...orgs[0].org.admin.auth)
      .expect(200);
    expectContract(auth, 'getSitePublishingAuthById');
    expect(auth.body).toMatchObject({ backend: 'integration', integration: NAME });
  });

  it('the whole loop: the script redirects to its provider, signs a JWT on return, and the JWT opens the page the visitor wanted', async () => {
    const { reader, org } = orgs[0];
    const { jwt, landing } = await logIn(0, 'alice', 'getting-started/install');
    expect(`${landing.origin}${landing.pathname}`).toBe(`${reader.base}/getting-started/install`);
    const opened = await resolve(landing.toString()).expect(200);
    expectContract(opened, 'resolvePublishedContentByUrl');
    expect(opened.body).toMatchObject({ site: reader.site.id, space: reader.spaces.guides, pathname: 'getting-started/install' });
    expect(opened.body.contextId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same JWT in the body opens every page of the site.
    await resolve(`${reader.base}/v1/intro`, { visitor: { jwtToken: jwt } }).expect(200);
    // The site's login and logout URLs (the renderer's `~gitbook/auth/login|logout`) lead to the integration.
    const profile = await t.http
      .get(`${sitePath(org, reader.site.id)}/published`)
      .set('Authorization', `Bearer ${opened.body.apiToken}`)
      .expect(200);
    expectContract(profile, 'getPublishedContentSite');
    const login = loginRoute(orgs[0].installationId, reader.site.id);
    expect(profile.body.site.urls).toMatchObject({ login, logout: `${login}?action=logout` });

    const [event] = await eventsOfType(t, org.admin, NAME, 'fetch_visitor_authentication');
    expect(event.payload).toMatchObject({ siteId: reader.site.id, location: '/getting-started/install', searchParams: {}, cookies: {} });
  }, 60_000);

  it('a JWT signed for another organization’s installation, or with the site’s custom key, is refused', async () => {
    const [a, b] = orgs;
    const { jwt: ofB } = await logIn(1, 'alice', '');
    await resolve(`${b.reader.base}/`, { visitor: { jwtToken: ofB } }).expect(200);
    expectErrorEnvelope(await resolve(`${a.reader.base}/`, { visitor: { jwtToken: ofB } }), 401);
    const custom = await t.http
      .get(`${sitePath(a.org, a.reader.site.id)}/publishing/auth`)
      .set(...a.org.admin.auth)
      .expect(200);
    expectErrorEnvelope(await resolve(`${a.reader.base}/`, { visitor: { jwtToken: await visitorJwt(custom.body.privateKey) } }), 401);
  }, 60_000);

  it('the visitor-auth route: logout, whitelisted search parameters, and 404 for anything but the site’s own integration', async () => {
    const [a, b] = orgs;
    const logout = await fetch(`${loginRoute(a.installationId, a.reader.site.id)}?action=logout`, { redirect: 'manual' });
    expect(logout.status).toBe(302);
    expect(logout.headers.get('location')).toBe(`${a.reader.base}/`);

    const withParams = await fetch(`${loginRoute(a.installationId, a.reader.site.id)}?location=%2F&invitation=inv-1&token=leak`, { redirect: 'manual' });
    const idp = new URL(withParams.headers.get('location')!);
    expect(idp.searchParams.get('invitation')).toBe('inv-1');
    expect(idp.searchParams.has('token')).toBe(false);

    // Another organization's installation on this site, an unknown installation, another integration: 404.
    for (const path of [
      loginRoute(b.installationId, a.reader.site.id),
      loginRoute('no-such-installation', a.reader.site.id),
      `${endpoint}/v1/integrations/no-such-integration/installations/${a.installationId}/sites/${a.reader.site.id}/visitor-auth`,
    ]) {
      const res = await t.http.get(new URL(path).pathname);
      expectErrorEnvelope(res, 404);
    }
  }, 60_000);
});
