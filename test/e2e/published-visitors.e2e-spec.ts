import { addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
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

/**
 * What a site API token reads of its own site (issue 26, point 4): exactly what the site shows the
 * token's visitor audience. A visitor-auth site hides the `api` section and the `v1` variant from
 * visitors without claims; their tokens, issued by `POST /v1/urls/published`, never see the titles or
 * ids of what is hidden (`getPublishedContentSite`, `getSpaceById`, `searchSiteContent`), while a
 * staff visitor's token sees all of it.
 */

describe("a site token reads its site as the token's audience sees it", () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: ReaderSite;
  let path: string;
  let key: string;
  let visitor: string;
  let staff: string;

  const tokenFor = async (claims: Record<string, unknown>) =>
    (
      await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, claims) } })
        .expect(200)
    ).body.apiToken as string;
  const bearer = (token: string) => ['Authorization', `Bearer ${token}`] as [string, string];

  beforeAll(async () => {
    t = await createTestApp({ PUBLISHED_BASE_URL });
    org = await createOrganization(t);
    reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'visitor-auth');
    path = sitePath(org, reader.site.id);
    key = (
      await t.http
        .get(`${path}/publishing/auth`)
        .set(...org.admin.auth)
        .expect(200)
    ).body.privateKey;
    await t.http
      .patch(`${path}/sections/${reader.sections.api}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff === true' })
      .expect(200);
    await t.http
      .patch(`${path}/site-spaces/${reader.siteSpaces.legacy}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff === true' })
      .expect(200);
    visitor = await tokenFor({});
    staff = await tokenFor({ staff: true });
  });

  afterAll(() => t.close());

  it('contextId: the same for visitors whose claims the conditions read alike, another when those claims change, never the claims', async () => {
    const contextOf = async (claims: Record<string, unknown>) => {
      const res = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, claims) } })
        .expect(200);
      expectContract(res, 'resolvePublishedContentByUrl');
      return res.body.contextId as string;
    };
    const a = await contextOf({ staff: true, email: 'a@example.com' });
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toContain('example');
    // `email` is read by no condition: the same context. `staff` is: another one.
    expect(await contextOf({ staff: true, email: 'b@example.com' })).toBe(a);
    expect(await contextOf({ staff: false, email: 'a@example.com' })).not.toBe(a);
    expect(await contextOf({})).toBe(await contextOf({ team: 'x' }));
  });

  const hidden = () => [reader.sections.api, reader.siteSpaces.legacy, reader.spaces.api, reader.spaces.legacy, '"API"', '"Legacy"'];

  it('getPublishedContentSite: the structure, customizations and count hold only what the audience is shown', async () => {
    const res = await t.http
      .get(`${path}/published`)
      .set(...bearer(visitor))
      .expect(200);
    expectContract(res, 'getPublishedContentSite');
    expect(res.body.structure.type).toBe('sections');
    expect(res.body.structure.structure.map((section: any) => [section.id, section.default])).toEqual([[reader.sections.guides, true]]);
    expect(res.body.structure.structure[0].siteSpaces.map((row: any) => [row.id, row.default])).toEqual([[reader.siteSpaces.guides, true]]);
    expect(Object.keys(res.body.customizations.siteSpaces)).toEqual([reader.siteSpaces.guides]);
    expect(res.body.site.siteSpaces).toBe(1);
    const text = JSON.stringify(res.body);
    for (const secret of hidden()) expect([secret, text.includes(secret)]).toEqual([secret, false]);

    const all = await t.http
      .get(`${path}/published`)
      .set(...bearer(staff))
      .expect(200);
    expectContract(all, 'getPublishedContentSite');
    expect(all.body.structure.structure.map((section: any) => section.id)).toEqual([reader.sections.guides, reader.sections.api]);
    expect(all.body.structure.structure[0].siteSpaces.map((row: any) => row.id)).toEqual([reader.siteSpaces.guides, reader.siteSpaces.legacy]);
    expect(Object.keys(all.body.customizations.siteSpaces).sort()).toEqual(Object.values(reader.siteSpaces).sort());
    expect(all.body.site.siteSpaces).toBe(3);

    // A member still sees the whole structure, conditions and all.
    const member = await t.http
      .get(`${path}/published`)
      .set(...org.admin.auth)
      .expect(200);
    expect(member.body.structure.structure.map((section: any) => section.id)).toEqual([reader.sections.guides, reader.sections.api]);
  });

  it('a hidden default gives way to the first item shown, as resolution serves it', async () => {
    await t.http
      .patch(`${path}/sections/${reader.sections.guides}`)
      .set(...org.admin.auth)
      .send({ condition: 'visitor.claims.staff !== true' })
      .expect(200);
    try {
      const res = await t.http
        .get(`${path}/published`)
        .set(...bearer(staff))
        .expect(200);
      expectContract(res, 'getPublishedContentSite');
      expect(res.body.structure.structure.map((section: any) => [section.id, section.default])).toEqual([[reader.sections.api, true]]);
      // The root serves the same section: resolution and the structure agree.
      const root = await t.http
        .post('/v1/urls/published')
        .send({ url: `${reader.base}/`, visitor: { jwtToken: await visitorJwt(key, { staff: true }) } })
        .expect(200);
      expect(root.body.siteSection).toBe(reader.sections.api);

      // A hidden default variant: the first variant shown stands in as the level's default.
      await t.http
        .patch(`${path}/sections/${reader.sections.guides}`)
        .set(...org.admin.auth)
        .send({ condition: null })
        .expect(200);
      await t.http
        .patch(`${path}/site-spaces/${reader.siteSpaces.guides}`)
        .set(...org.admin.auth)
        .send({ condition: 'visitor.claims.beta !== true' })
        .expect(200);
      const beta = await tokenFor({ beta: true, staff: true });
      const variants = await t.http
        .get(`${path}/published`)
        .set(...bearer(beta))
        .expect(200);
      expectContract(variants, 'getPublishedContentSite');
      const [guides] = variants.body.structure.structure;
      expect(guides.siteSpaces.map((row: any) => [row.id, row.default])).toEqual([[reader.siteSpaces.legacy, true]]);
      expect(JSON.stringify(variants.body)).not.toContain(reader.siteSpaces.guides);
    } finally {
      for (const [kind, id] of [
        ['sections', reader.sections.guides],
        ['site-spaces', reader.siteSpaces.guides],
      ]) {
        await t.http
          .patch(`${path}/${kind}/${id}`)
          .set(...org.admin.auth)
          .send({ condition: null })
          .expect(200);
      }
    }
  });

  it('getSpaceById of a space the audience is not shown is unknown (404); shown, it answers', async () => {
    for (const spaceId of [reader.spaces.api, reader.spaces.legacy]) {
      expectErrorEnvelope(await t.http.get(`/v1/spaces/${spaceId}`).set(...bearer(visitor)), 404);
      expectContract(
        await t.http
          .get(`/v1/spaces/${spaceId}`)
          .set(...bearer(staff))
          .expect(200),
        'getSpaceById',
      );
    }
    expectContract(
      await t.http
        .get(`/v1/spaces/${reader.spaces.guides}`)
        .set(...bearer(visitor))
        .expect(200),
      'getSpaceById',
    );
  });

  it('searchSiteContent finds nothing in what the audience is not shown', async () => {
    const search = (token: string, query: string) =>
      t.http
        .post(`${path}/search`)
        .set(...bearer(token))
        .send({ query, scope: { mode: 'all' } })
        .expect(200);
    const spacesOf = (res: { body: { items: { id: string }[] } }) => res.body.items.map((group) => group.id).sort();
    expect(spacesOf(await search(visitor, 'reference'))).toEqual([]);
    expect(spacesOf(await search(staff, 'reference'))).toEqual([reader.spaces.api]);
    expect(spacesOf(await search(visitor, 'intro'))).toEqual([reader.spaces.guides]);
    expect(spacesOf(await search(staff, 'intro'))).toEqual([reader.spaces.guides, reader.spaces.legacy].sort());
  });

  it("getUserById: a reader sees the public profile of the site's organization's people, never an e-mail; anyone else is unknown", async () => {
    const member = await addMember(t, org, 'read');
    const outsider = await createUser(t);
    const elsewhere = await createOrganization(t);
    for (const user of [org.admin.user, member.user]) {
      const res = await t.http
        .get(`/v1/users/${user.id}`)
        .set(...bearer(visitor))
        .expect(200);
      expectContract(res, 'getUserById');
      expect(res.body).toEqual({
        object: 'user',
        id: user.id,
        displayName: user.displayName,
        ...(user.photoUrl ? { photoURL: user.photoUrl } : {}),
        urls: { location: expect.stringMatching(new RegExp(`/v1/users/${user.id}$`)) },
      });
      // The same profile to a member of the organization carries the e-mail: the site token's lacks it on purpose.
      const asMember = await t.http
        .get(`/v1/users/${user.id}`)
        .set(...org.admin.auth)
        .expect(200);
      expect(asMember.body.email).toBe(user.email);
    }
    for (const userId of [outsider.user.id, elsewhere.admin.user.id, 'no-such-user']) {
      expectErrorEnvelope(await t.http.get(`/v1/users/${userId}`).set(...bearer(visitor)), 404);
    }
  });

  it("redirects lead a site token's audience only to what it is shown (getSiteRedirectBySource, and URL resolution)", async () => {
    const destinations: Record<string, object> = {
      '/to-api': { kind: 'site-section', siteSectionId: reader.sections.api },
      '/to-legacy': { kind: 'site-space', siteSpaceId: reader.siteSpaces.legacy },
      '/to-guides': { kind: 'site-space', siteSpaceId: reader.siteSpaces.guides },
    };
    for (const [source, destination] of Object.entries(destinations)) {
      await t.http
        .post(`${path}/redirects`)
        .set(...org.admin.auth)
        .send({ source, destination })
        .expect(201);
    }
    // Expected, by source: [shown to a visitor without claims, shown to staff].
    const expected: Record<string, [boolean, boolean]> = { '/to-api': [false, true], '/to-legacy': [false, true], '/to-guides': [true, true] };
    for (const [source, [toVisitor, toStaff]] of Object.entries(expected)) {
      for (const [who, token, claims, shown] of [
        ['visitor', visitor, {}, toVisitor],
        ['staff', staff, { staff: true }, toStaff],
      ] as const) {
        const where = `${who} ${source}`;
        const res = await t.http.get(`${path}/redirect?source=${source}`).set(...bearer(token));
        expect({ where, status: res.status }).toEqual({ where, status: shown ? 200 : 404 });
        if (!shown) {
          expectErrorEnvelope(res, 404);
          expect(JSON.stringify(res.body)).not.toContain(reader.sections.api);
        }
        const resolved = await t.http.post('/v1/urls/published').send({ url: `${reader.base}${source}`, visitor: { jwtToken: await visitorJwt(key, claims) } });
        expect({ where, status: resolved.status }).toEqual({ where, status: shown ? 200 : 404 });
        if (shown) expect({ where, target: resolved.body.target }).toEqual({ where, target: 'content' });
      }
    }
  });
});
