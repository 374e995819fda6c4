import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createReaderSite, ReaderSite, visitorJwt } from '../support/published-builders';
import { sitePath } from '../support/site-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Publishing auth (issue 26, point 3), visitors' claims deciding what a site shows (point 2), and
 * conditions as expressions (point 10).
 */

const PUBLISHED_BASE_URL = 'http://readers.test/sites';

describe('publishing auth, visitor claims and conditions', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: ReaderSite;
  let authPath: string;

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'visitor-auth');
    authPath = `${sitePath(org, reader.site.id)}/publishing/auth`;
  });

  afterAll(() => t.close());

  describe('getSitePublishingAuthById, updateSitePublishingAuthById, regenerateSitePublishingAuthById', () => {
    it('requires authentication, and is for admins only', async () => {
      expectErrorEnvelope(await t.http.get(authPath), 401);
      const editor = await addMember(t, org, 'edit');
      expectErrorEnvelope(await t.http.get(authPath).set(...editor.auth), 403);
      expectErrorEnvelope(
        await t.http
          .patch(authPath)
          .set(...editor.auth)
          .send({ fallbackURL: null }),
        403,
      );
      expectErrorEnvelope(await t.http.post(`${authPath}/regenerate`).set(...editor.auth), 403);
      const outsider = await createOrganization(t);
      expectErrorEnvelope(await t.http.get(authPath).set(...outsider.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(`${sitePath(org, 'no-such-site')}/publishing/auth`).set(...org.admin.auth), 404);
    });

    it('answers the public SitePublishingAuth; updates; regenerates the key', async () => {
      const first = await t.http
        .get(authPath)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(first, 'getSitePublishingAuthById');
      expect(first.body).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.stringMatching(/^[\w-]{43}$/) });
      const again = await t.http
        .get(authPath)
        .set(...org.admin.auth)
        .expect(200);
      expect(again.body.privateKey).toBe(first.body.privateKey);

      const updated = await t.http
        .patch(authPath)
        .set(...org.admin.auth)
        .send({ backend: 'custom', fallbackURL: 'https://auth.example.com/login', logoutURL: 'https://auth.example.com/logout' })
        .expect(200);
      expectContract(updated, 'updateSitePublishingAuthById');
      expect(updated.body).toEqual({
        object: 'publishing-auth',
        backend: 'custom',
        privateKey: first.body.privateKey,
        fallbackURL: 'https://auth.example.com/login',
        logoutURL: 'https://auth.example.com/logout',
      });
      // The published profile presents them as the site's `urls.login` and `urls.logout` (the renderer's login and logout routes).
      const siteUrls = async () => {
        const profile = await t.http
          .get(`${sitePath(org, reader.site.id)}/published`)
          .set(...org.admin.auth)
          .expect(200);
        expectContract(profile, 'getPublishedContentSite');
        return profile.body.site.urls;
      };
      expect(await siteUrls()).toMatchObject({ login: 'https://auth.example.com/login', logout: 'https://auth.example.com/logout' });
      const cleared = await t.http
        .patch(authPath)
        .set(...org.admin.auth)
        .send({ logoutURL: null })
        .expect(200);
      expect(cleared.body.logoutURL).toBeUndefined();
      expect(cleared.body.fallbackURL).toBe('https://auth.example.com/login');
      expect((await siteUrls()).logout).toBeUndefined();

      const regenerated = await t.http
        .post(`${authPath}/regenerate`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(regenerated, 'regenerateSitePublishingAuthById');
      expect(regenerated.body.privateKey).not.toBe(first.body.privateKey);
      expect(regenerated.body.fallbackURL).toBe('https://auth.example.com/login');
    });

    it('refuses bad input with 400 and changes nothing', async () => {
      const before = (
        await t.http
          .get(authPath)
          .set(...org.admin.auth)
          .expect(200)
      ).body;
      for (const body of [
        { backend: 'saml' },
        { fallbackURL: 'not a url' },
        { logoutURL: 42 },
        { privateKey: 'mine' },
        { fallbackURL: 'ftp://x.example.com' },
      ]) {
        expectErrorEnvelope(
          await t.http
            .patch(authPath)
            .set(...org.admin.auth)
            .send(body),
          400,
        );
      }
      expect(
        (
          await t.http
            .get(authPath)
            .set(...org.admin.auth)
            .expect(200)
        ).body,
      ).toEqual(before);
    });

    it('keeps the key encrypted at rest', async () => {
      const { privateKey } = (
        await t.http
          .get(authPath)
          .set(...org.admin.auth)
          .expect(200)
      ).body;
      const [row] = await t.dataSource.query(`SELECT private_key FROM site_publishing_auth WHERE site_id = $1`, [reader.site.id]);
      expect(row.private_key).toMatch(/^enc:v1:/);
      expect(row.private_key).not.toContain(privateKey);
    });
  });

  describe("visitors' claims decide what is shown (signed claims, and the unsigned claims the schema declares)", () => {
    let key: string;
    const resolve = (path: string, visitor: object) => t.http.post('/v1/urls/published').send({ url: `${reader.base}/${path}`, visitor });

    beforeAll(async () => {
      await t.http
        .put(`${sitePath(org, reader.site.id)}/adaptive-schema`)
        .set(...org.admin.auth)
        .send({
          jsonSchema: {
            type: 'object',
            properties: {
              staff: { type: 'boolean', description: 'Staff' },
              unsigned: {
                type: 'object',
                description: 'Unsigned claims of the site visitor.',
                properties: { preview: { type: 'boolean', description: 'Preview' } },
                additionalProperties: false,
              },
            },
            additionalProperties: false,
          },
        })
        .expect(200);
      // The API section only for staff (signed); the v1 variant only with the unsigned `preview` claim.
      await t.http
        .patch(`${sitePath(org, reader.site.id)}/sections/${reader.sections.api}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.staff === true' })
        .expect(200);
      await t.http
        .patch(`${sitePath(org, reader.site.id)}/site-spaces/${reader.siteSpaces.legacy}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.unsigned.preview' })
        .expect(200);
      key = (
        await t.http
          .get(`${sitePath(org, reader.site.id)}/publishing/auth`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.privateKey;
    });

    it('a false condition hides a section or a variant; a true one shows it', async () => {
      const plain = { jwtToken: await visitorJwt(key, { staff: false }) };
      const staff = { jwtToken: await visitorJwt(key, { staff: true }) };
      expectErrorEnvelope(await resolve('api/reference', plain), 404);
      expect((await resolve('api/reference', staff).expect(200)).body.space).toBe(reader.spaces.api);
      expectErrorEnvelope(await resolve('v1/intro', plain), 404);
      expect((await resolve('v1/intro', { ...plain, unsignedClaims: { preview: true } }).expect(200)).body.space).toBe(reader.spaces.legacy);
      // A signed claim cannot be smuggled in unsigned, and unsigned claims the schema does not declare are dropped.
      expectErrorEnvelope(await resolve('api/reference', { ...plain, unsignedClaims: { staff: true } }), 404);
      // The token carries the audience: the spaces it may read, and its claims.
      const token = (await resolve('', { ...staff, unsignedClaims: { preview: true, other: 1 } }).expect(200)).body.apiToken as string;
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      expect(payload.claims).toEqual({ staff: true, unsigned: { preview: true } });
      expect([...payload.spaces].sort()).toEqual([reader.spaces.api, reader.spaces.guides, reader.spaces.legacy].sort());
    });
  });

  describe('conditions are expressions (point 10)', () => {
    it('accepts a condition naming a claim the schema does not declare; refuses only one that does not parse', async () => {
      const path = `${sitePath(org, reader.site.id)}/site-spaces/${reader.siteSpaces.legacy}`;
      const set = await t.http
        .patch(path)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.plan === "enterprise"' })
        .expect(200);
      expect(set.body.condition).toBe('visitor.claims.plan === "enterprise"');
      const section = `${sitePath(org, reader.site.id)}/sections/${reader.sections.api}`;
      await t.http
        .patch(section)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.undeclared || visitor.claims.unsigned.other' })
        .expect(200);
      for (const condition of ['visitor.claims.plan ===', '(((', 'a b']) {
        expectErrorEnvelope(
          await t.http
            .patch(path)
            .set(...org.admin.auth)
            .send({ condition }),
          400,
          /syntax error/,
        );
        expectErrorEnvelope(
          await t.http
            .patch(section)
            .set(...org.admin.auth)
            .send({ condition }),
          400,
          /syntax error/,
        );
      }
      // Evaluated: the undeclared claim is absent for this visitor (hidden), present in a JWT that carries it (shown).
      const key = (
        await t.http
          .get(`${sitePath(org, reader.site.id)}/publishing/auth`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.privateKey;
      expectErrorEnvelope(await t.http.post('/v1/urls/published').send({ url: `${reader.base}/v1/intro`, visitor: { jwtToken: await visitorJwt(key) } }), 404);
      const enterprise = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/v1/intro`, visitor: { jwtToken: await visitorJwt(key, { plan: 'enterprise' }) } })
        .expect(200);
      expect(enterprise.body.space).toBe(reader.spaces.legacy);
    });
  });
});
