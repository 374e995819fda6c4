import { OpenApiSpecContent } from '../../src/modules/openapi-specs/openapi-spec-content.entity';
import { OpenApiSpecVersion } from '../../src/modules/openapi-specs/openapi-spec-version.entity';
import { OpenApiSpec } from '../../src/modules/openapi-specs/openapi-spec.entity';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { PETSTORE_31_YAML, petstore, SPLIT_ENTRY, SPLIT_OWNER, SPLIT_PET, SWAGGER_2_YAML } from '../support/openapi-fixtures';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { serveWebsite, Website } from '../support/website-fixture';

describe('OpenAPI specifications', () => {
  let t: TestApp;
  let site: Website;
  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    site = await serveWebsite({
      '/specs/openapi.yaml': { type: 'application/yaml', body: SPLIT_ENTRY },
      '/specs/schemas/pet.yaml': { type: 'application/yaml', body: SPLIT_PET },
      '/specs/schemas/owner.json': { type: 'application/json', body: SPLIT_OWNER },
      '/specs/petstore.json': { type: 'application/json', body: JSON.stringify(petstore()) },
      '/specs/petstore-plus-one.json': { type: 'application/json', body: `${JSON.stringify(petstore())} ` },
      '/specs/outside.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', 'http://localhost:1/pet.yaml#/Pet') },
      '/specs/missing-file.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', './schemas/nope.yaml#/Pet') },
      '/specs/not-a-spec.txt': { type: 'text/plain', body: 'just: [some\nbroken yaml' },
      '/specs/redirect.yaml': { status: 302, headers: { location: '/specs/petstore.json' } },
      '/specs/via-redirect.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', './schemas/moved.yaml#/Pet') },
      '/specs/schemas/moved.yaml': { status: 302, headers: { location: '/specs/schemas/pet.yaml' } },
      '/specs/via-other-origin.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', './schemas/elsewhere.yaml#/Pet') },
      '/specs/schemas/elsewhere.yaml': (req, res) => {
        // The same server under another name is another origin.
        const port = (req.headers.host ?? '').split(':')[1];
        res.writeHead(302, { location: `http://localhost:${port}/specs/schemas/pet.yaml` }).end();
      },
    });
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const specs = (org: OrgFixture) => `/v1/orgs/${org.id}/openapi`;
  const spec = (org: OrgFixture, slug: string) => `${specs(org)}/${slug}`;
  const versions = (org: OrgFixture, slug: string) => `${spec(org, slug)}/versions`;
  const textSource = (text: string) => ({ source: { text } });
  const create = (org: OrgFixture, slug: string, source: Record<string, unknown>) =>
    t.http
      .post(specs(org))
      .set(...org.admin.auth)
      .send({ slug, source });
  const put = (org: OrgFixture, slug: string, body: Record<string, unknown>) =>
    t.http
      .put(spec(org, slug))
      .set(...org.admin.auth)
      .send(body);
  const get = (org: OrgFixture, path: string) => t.http.get(path).set(...org.admin.auth);
  const specRows = (org: OrgFixture) => t.dataSource.getRepository(OpenApiSpec).countBy({ organizationId: org.id });
  const versionCount = async (org: OrgFixture, slug: string) => {
    const row = await t.dataSource.getRepository(OpenApiSpec).findOneBy({ organizationId: org.id, slug });
    return row ? t.dataSource.getRepository(OpenApiSpecVersion).countBy({ specId: row.id }) : 0;
  };

  describe('access', () => {
    describe('GET /v1/orgs/{organizationId}/openapi', () => {
      itChecksAccess(() => t, { request: (org) => t.http.get(specs(org)), anonymous: 401, outsider: 404, member: { role: null, status: 403 } });
    });

    describe('POST /v1/orgs/{organizationId}/openapi', () => {
      itChecksAccess(() => t, {
        request: (org) => t.http.post(specs(org)).send({ slug: 'api', source: { text: JSON.stringify(petstore()) } }),
        anonymous: 401,
        outsider: 404,
        member: {
          role: 'edit',
          status: 403,
          title: 'refuses a member below create with 403, and creates nothing',
          after: async (org) => expect(await specRows(org)).toBe(0),
        },
      });
    });

    it('lets members below create read specs and versions, but not change them', async () => {
      const org = await createOrganization(t);
      await create(org, 'api', { text: JSON.stringify(petstore()) }).expect(201);
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .get(spec(org, 'api'))
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'getOpenAPISpecBySlug');
      expect(res.body.permissions).toEqual({ view: true, edit: false });
      await t.http
        .get(`${versions(org, 'api')}/latest/content`)
        .set(...reader.auth)
        .expect(200);
      const body = textSource(JSON.stringify(petstore(true)));
      await expectRefused(() => t.http.put(spec(org, 'api')).send(body), [reader, 403]);
      await expectRefused(() => t.http.patch(spec(org, 'api')).send({ visibility: 'public' }), [reader, 403]);
      await expectRefused(() => t.http.delete(spec(org, 'api')), [reader, 403]);
      expect(await versionCount(org, 'api')).toBe(1);
      const creator = await addMember(t, org, 'create');
      await t.http
        .put(spec(org, 'api'))
        .set(...creator.auth)
        .send(body)
        .expect(200);
      expect(await versionCount(org, 'api')).toBe(2);
    });

    it('answers 404 for an unknown slug or version, and for a spec of another organization', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      await create(other, 'theirs', { text: JSON.stringify(petstore()) }).expect(201);
      expectErrorEnvelope(await get(org, spec(org, 'nope')), 404, /nope/);
      expectErrorEnvelope(await get(org, spec(org, 'theirs')), 404);
      expectErrorEnvelope(await get(org, `${versions(org, 'nope')}/latest`), 404);
      await create(org, 'api', { text: JSON.stringify(petstore()) }).expect(201);
      const theirs = (await get(other, `${versions(other, 'theirs')}/latest`).expect(200)).body.id;
      for (const path of [`${versions(org, 'api')}/nope`, `${versions(org, 'api')}/nope/content`, `${versions(org, 'api')}/${theirs}`]) {
        expectErrorEnvelope(await get(org, path), 404, /not found/);
      }
      expectErrorEnvelope(
        await t.http
          .patch(spec(org, 'nope'))
          .set(...org.admin.auth)
          .send({ visibility: 'public' }),
        404,
      );
    });
  });

  describe('create from text', () => {
    it('creates a spec from JSON with its first version, content and raw text', async () => {
      const org = await createOrganization(t);
      const text = JSON.stringify(petstore(), null, 2);
      const res = await create(org, 'petstore', { text }).expect(201);
      expectContract(res, 'createOpenAPISpec');
      expect(res.body).toEqual({
        object: 'openapi-spec',
        id: expect.any(String),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        slug: 'petstore',
        processingState: 'complete',
        visibility: 'private',
        lastVersion: expect.any(String),
        lastProcessedAt: expect.any(String),
        lastProcessedErrors: [],
        lastProcessedErrorCount: 0,
        permissions: { view: true, edit: true },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/openapi/petstore`, app: `http://app.quire.test/o/${org.id}/openapi/petstore` },
      });

      const latest = await get(org, `${versions(org, 'petstore')}/latest`).expect(200);
      expectContract(latest, 'getLatestOpenAPISpecVersion');
      const location = `http://quire.test/v1/orgs/${org.id}/openapi/petstore/versions/${res.body.lastVersion}`;
      expect(latest.body).toEqual({
        object: 'openapi-spec-version',
        id: res.body.lastVersion,
        createdAt: expect.any(String),
        url: `${location}/content/raw`,
        urls: { location },
      });
      const byId = await get(org, `${versions(org, 'petstore')}/${res.body.lastVersion}`).expect(200);
      expectContract(byId, 'getOpenAPISpecVersionById');
      expect(byId.body).toEqual(latest.body);

      const content = await get(org, `${versions(org, 'petstore')}/latest/content`).expect(200);
      expectContract(content, 'getLatestOpenAPISpecVersionContent');
      expect(content.body).toEqual({
        filesystem: { 'openapi.json': petstore() },
        url: `${location}/content/raw`,
        urls: { source: `${location}/content/raw`, public: null },
      });
      const contentById = await get(org, `${versions(org, 'petstore')}/${res.body.lastVersion}/content`).expect(200);
      expectContract(contentById, 'getOpenAPISpecVersionContentById');
      expect(contentById.body).toEqual(content.body);

      const raw = await get(org, `${versions(org, 'petstore')}/latest/content/raw`).expect(200);
      expectContract(raw, 'getLatestOpenAPISpecVersionContentRaw');
      expect(raw.body).toEqual({ text, format: 'json' });
      const rawById = await get(org, `${versions(org, 'petstore')}/${res.body.lastVersion}/content/raw`).expect(200);
      expect(rawById.body).toEqual(raw.body);

      expectContract(await get(org, spec(org, 'petstore')).expect(200), 'getOpenAPISpecBySlug');
    });

    it('creates specs from YAML: OpenAPI 3.1 and Swagger 2.0', async () => {
      const org = await createOrganization(t);
      for (const [slug, text, title] of [
        ['pets-31', PETSTORE_31_YAML, 'Pets 3.1'],
        ['old-pets', SWAGGER_2_YAML, 'Old pets'],
      ]) {
        expectContract(await create(org, slug, { text }).expect(201), 'createOpenAPISpec');
        const content = await get(org, `${versions(org, slug)}/latest/content`).expect(200);
        expect(content.body.filesystem['openapi.yaml'].info.title).toBe(title);
        expect((await get(org, `${versions(org, slug)}/latest/content/raw`).expect(200)).body).toEqual({ text, format: 'yaml' });
      }
    });

    it('answers 409 when the slug is taken, and leaves the spec as it was', async () => {
      const org = await createOrganization(t);
      await create(org, 'api', { text: JSON.stringify(petstore()) }).expect(201);
      expectErrorEnvelope(await create(org, 'api', { text: PETSTORE_31_YAML }), 409, /already exists/);
      expect(await versionCount(org, 'api')).toBe(1);
    });

    it('checks the slug and the source', async () => {
      const org = await createOrganization(t);
      const text = JSON.stringify(petstore());
      await create(org, 'a'.repeat(100), { text }).expect(201);
      expectErrorEnvelope(await create(org, 'b'.repeat(101), { text }), 400, /slug/);
      for (const slug of ['', 'with space', '-leading', 'double--hyphen', 'under_score']) expectErrorEnvelope(await create(org, slug, { text }), 400, /slug/);
      expectErrorEnvelope(await create(org, 'both', { text, url: `${site.origin}/specs/petstore.json` }), 400, /source: must have exactly one of url or text/);
      expectErrorEnvelope(await create(org, 'neither', {}), 400, /source/);
      expectErrorEnvelope(await create(org, 'empty', { text: '' }), 400, /text/);
      expectErrorEnvelope(await create(org, 'null-text', { text: null }), 400, /text: must not be null/);
      expectErrorEnvelope(await create(org, 'ftp', { url: 'ftp://example.com/spec.json' }), 400, /url/);
      expectErrorEnvelope(
        await t.http
          .post(specs(org))
          .set(...org.admin.auth)
          .send({ slug: 'x', source: null }),
        400,
        /source/,
      );
      expectErrorEnvelope(await put(org, 'not_a_slug', textSource(text)), 400, /specSlug/);
      expect(await specRows(org)).toBe(1);
    });
  });

  // A spec that parses but does not validate is kept: `openapi-specs-problems.e2e-spec.ts`.
  describe('refusals (400, and no version)', () => {
    it('makes no version when a new source of an existing spec does not parse', async () => {
      const org = await createOrganization(t);
      await create(org, 'api', { text: JSON.stringify(petstore()) }).expect(201);
      const before = (await get(org, spec(org, 'api')).expect(200)).body;
      for (const text of ['{ "openapi": "3.0.3" ', 'not: [valid', '[1, 2]', '{"hello": "world"}']) {
        expectErrorEnvelope(await put(org, 'api', textSource(text)), 400);
      }
      expect(await versionCount(org, 'api')).toBe(1);
      expect((await get(org, spec(org, 'api')).expect(200)).body).toEqual(before);
    });

    it('bounds the size of a document: n bytes accepted, n + 1 refused (text and URL)', async () => {
      const text = JSON.stringify(petstore());
      const limit = Buffer.byteLength(text);
      const small = await createTestApp({ OPENAPI_MAX_BYTES: String(limit), OUTBOUND_ALLOW_PRIVATE: 'true' });
      try {
        const org = await createOrganization(small);
        const send = (slug: string, source: Record<string, string>) =>
          small.http
            .post(`/v1/orgs/${org.id}/openapi`)
            .set(...org.admin.auth)
            .send({ slug, source });
        await send('fits', { text }).expect(201);
        expectErrorEnvelope(await send('text', { text: `${text} ` }), 400, new RegExp(`larger than ${limit} bytes`));
        await send('fits-url', { url: `${site.origin}/specs/petstore.json` }).expect(201);
        expectErrorEnvelope(await send('url', { url: `${site.origin}/specs/petstore-plus-one.json` }), 400, new RegExp(`larger than ${limit} bytes`));
        expect(await small.dataSource.getRepository(OpenApiSpec).countBy({ organizationId: org.id })).toBe(2);
      } finally {
        await small.close();
      }
    });

    it('accepts a source URL of 2048 characters and refuses 2049', async () => {
      const org = await createOrganization(t);
      const url = (length: number) => {
        const prefix = `${site.origin}/specs/`;
        return `${prefix}${'a'.repeat(length - prefix.length - 5)}.json`;
      };
      expect(url(2048)).toHaveLength(2048);
      // Past validation: fetched, and the test server has no such file.
      expectErrorEnvelope(await create(org, 'long', { url: url(2048) }), 400, /could not fetch .*HTTP 404/);
      expectErrorEnvelope(await create(org, 'long', { url: url(2049) }), 400, /url: must be shorter than or equal to 2048 characters/);
    });
  });

  describe('versions', () => {
    it('grow only when the content changes, newest first', async () => {
      const org = await createOrganization(t);
      const first = JSON.stringify(petstore());
      const created = await put(org, 'api', textSource(first)).expect(201);
      expectContract(created, 'createOrUpdateOpenAPISpecBySlug');
      const same = await put(org, 'api', textSource(first)).expect(200);
      expectContract(same, 'createOrUpdateOpenAPISpecBySlug');
      expect(same.body.lastVersion).toBe(created.body.lastVersion);
      expect(same.body.updatedAt).toBe(created.body.updatedAt);
      expect(await versionCount(org, 'api')).toBe(1);

      const changed = await put(org, 'api', textSource(JSON.stringify(petstore(true)))).expect(200);
      expect(changed.body.lastVersion).not.toBe(created.body.lastVersion);
      const list = await get(org, versions(org, 'api')).expect(200);
      expectContract(list, 'listOpenAPISpecVersions');
      expect(list.body.count).toBe(2);
      expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([changed.body.lastVersion, created.body.lastVersion]);
      expect((await get(org, `${versions(org, 'api')}/latest`).expect(200)).body.id).toBe(changed.body.lastVersion);
      // The older version keeps its own content.
      const old = await get(org, `${versions(org, 'api')}/${created.body.lastVersion}/content`).expect(200);
      expect(Object.keys(old.body.filesystem['openapi.json'].paths)).not.toContain('/stores');
      const latest = await get(org, `${versions(org, 'api')}/latest/content`).expect(200);
      expect(Object.keys(latest.body.filesystem['openapi.json'].paths)).toContain('/stores');

      // Going back to the first content is a change too (a new version), stored once.
      await put(org, 'api', textSource(first)).expect(200);
      expect(await versionCount(org, 'api')).toBe(3);
      const hashes = await t.dataSource.getRepository(OpenApiSpecVersion).find({ where: { specId: created.body.id }, select: { contentHash: true } });
      expect(new Set(hashes.map((row) => row.contentHash)).size).toBe(2);
    });

    it('walks the versions page by page', async () => {
      const org = await createOrganization(t);
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        const doc = petstore() as any;
        doc.info.version = `1.0.${i}`;
        made.push((await put(org, 'api', textSource(JSON.stringify(doc))).expect(i === 0 ? 201 : 200)).body.lastVersion);
      }
      const walk = await walkList(t, versions(org, 'api'), org.admin, { limit: 2 }, (res) => expectContract(res, 'listOpenAPISpecVersions'));
      expect(walk).toEqual({ ids: [...made].reverse(), pages: 3, count: 5 });
      await expectLimitUpTo1000(t, versions(org, 'api'), org.admin);
      expectErrorEnvelope(await get(org, `${versions(org, 'api')}?page=garbage`), 400);
    });
  });

  describe('list, PATCH and DELETE', () => {
    it('lists the specs by slug, page by page', async () => {
      const org = await createOrganization(t);
      const text = JSON.stringify(petstore());
      for (const slug of ['charlie', 'alpha', 'bravo']) await create(org, slug, { text }).expect(201);
      const res = await get(org, specs(org)).expect(200);
      expectContract(res, 'listOpenAPISpecs');
      expect(res.body.items.map((item: { slug: string }) => item.slug)).toEqual(['alpha', 'bravo', 'charlie']);
      const walk = await walkList(t, specs(org), org.admin, { limit: 2 }, (page) => expectContract(page, 'listOpenAPISpecs'));
      expect(walk.pages).toBe(2);
      expect(walk.ids).toEqual(res.body.items.map((item: { id: string }) => item.id));
      await expectLimitUpTo1000(t, specs(org), org.admin);
    });

    it('changes the visibility', async () => {
      const org = await createOrganization(t);
      await create(org, 'api', { url: `${site.origin}/specs/petstore.json` }).expect(201);
      const res = await t.http
        .patch(spec(org, 'api'))
        .set(...org.admin.auth)
        .send({ visibility: 'public' })
        .expect(200);
      expectContract(res, 'updateOpenAPISpecBySlug');
      expect(res.body.visibility).toBe('public');
      const content = await get(org, `${versions(org, 'api')}/latest/content`).expect(200);
      expect(content.body.urls).toEqual({ source: `${site.origin}/specs/petstore.json`, public: `${site.origin}/specs/petstore.json` });
      for (const visibility of ['published', null, undefined]) {
        expectErrorEnvelope(
          await t.http
            .patch(spec(org, 'api'))
            .set(...org.admin.auth)
            .send({ visibility }),
          400,
          /visibility/,
        );
      }
    });

    it('deletes a spec with its versions (205), then answers 204', async () => {
      const org = await createOrganization(t);
      const text = JSON.stringify(petstore());
      await create(org, 'api', { text }).expect(201);
      // Content is shared across organizations: make the second version this test's own.
      const own = petstore(true) as any;
      own.info.description = `Only in ${org.id}`;
      await put(org, 'api', textSource(JSON.stringify(own))).expect(200);
      // Another spec with the same content keeps its stored copy.
      await create(org, 'twin', { text }).expect(201);
      const contents = () => t.dataSource.getRepository(OpenApiSpecContent).count();
      const before = await contents();
      await t.http
        .delete(spec(org, 'api'))
        .set(...org.admin.auth)
        .expect(205);
      expect(await contents()).toBe(before - 1);
      expectErrorEnvelope(await get(org, spec(org, 'api')), 404);
      expect((await get(org, `${versions(org, 'twin')}/latest/content`).expect(200)).body.filesystem['openapi.json']).toEqual(petstore());
      await t.http
        .delete(spec(org, 'api'))
        .set(...org.admin.auth)
        .expect(204);
    });
  });

  describe('from a URL', () => {
    it('fetches the spec and the files its relative $refs name, same origin only', async () => {
      const org = await createOrganization(t);
      const url = `${site.origin}/specs/openapi.yaml`;
      const res = await create(org, 'split', { url }).expect(201);
      expectContract(res, 'createOpenAPISpec');
      expect(res.body.sourceURL).toBe(url);
      const latest = await get(org, `${versions(org, 'split')}/latest`).expect(200);
      expect(latest.body.url).toBe(url);
      const content = await get(org, `${versions(org, 'split')}/latest/content`).expect(200);
      expectContract(content, 'getLatestOpenAPISpecVersionContent');
      expect(Object.keys(content.body.filesystem)).toEqual(['openapi.yaml', 'schemas/pet.yaml', 'schemas/owner.json']);
      expect(content.body.filesystem['schemas/owner.json']).toEqual(JSON.parse(SPLIT_OWNER));
      expect(content.body.url).toBe(url);
      expect(content.body.urls).toEqual({ source: url, public: null });
      expect((await get(org, `${versions(org, 'split')}/latest/content/raw`).expect(200)).body).toEqual({ text: SPLIT_ENTRY, format: 'yaml' });

      // Fetching again the same content makes no version.
      await put(org, 'split', { source: { url } }).expect(200);
      expect(await versionCount(org, 'split')).toBe(1);
    });

    it('follows a redirect on the same origin, for the entry and for a referenced file, but not to another origin', async () => {
      const org = await createOrganization(t);
      await create(org, 'moved', { url: `${site.origin}/specs/redirect.yaml` }).expect(201);
      expect((await get(org, `${versions(org, 'moved')}/latest`).expect(200)).body.url).toBe(`${site.origin}/specs/petstore.json`);
      await create(org, 'ref-moved', { url: `${site.origin}/specs/via-redirect.yaml` }).expect(201);
      const content = await get(org, `${versions(org, 'ref-moved')}/latest/content`).expect(200);
      expect(Object.keys(content.body.filesystem)).toEqual(['via-redirect.yaml', 'schemas/moved.yaml', 'schemas/owner.json']);
      expectErrorEnvelope(
        await create(org, 'ref-away', { url: `${site.origin}/specs/via-other-origin.yaml` }),
        400,
        /redirected to http:\/\/localhost.*outside the specification's origin/,
      );
    });

    it('refuses a $ref to another origin, a missing file, and an unreadable document, creating nothing', async () => {
      const org = await createOrganization(t);
      const cases: [string, RegExp][] = [
        ['outside.yaml', /points outside the specification's origin/],
        ['missing-file.yaml', /could not fetch .*nope\.yaml: HTTP 404/],
        ['not-a-spec.txt', /not valid YAML or JSON/],
        ['absent.json', /could not fetch .*HTTP 404/],
      ];
      for (const [file, message] of cases) expectErrorEnvelope(await create(org, 'bad', { url: `${site.origin}/specs/${file}` }), 400, message);
      expect(await specRows(org)).toBe(0);
    });

    it('bounds the depth of referenced files', async () => {
      const shallow = await createTestApp({ OPENAPI_MAX_REF_DEPTH: '1', OUTBOUND_ALLOW_PRIVATE: 'true' });
      try {
        const org = await createOrganization(shallow);
        const res = await shallow.http
          .post(`/v1/orgs/${org.id}/openapi`)
          .set(...org.admin.auth)
          .send({ slug: 'deep', source: { url: `${site.origin}/specs/openapi.yaml` } });
        expectErrorEnvelope(res, 400, /deeper than 1 levels/);
      } finally {
        await shallow.close();
      }
    });

    it('refuses a private address when OUTBOUND_ALLOW_PRIVATE is off, fetching nothing', async () => {
      const guarded = await createTestApp();
      try {
        const org = await createOrganization(guarded);
        const before = site.requests.length;
        const res = await guarded.http
          .post(`/v1/orgs/${org.id}/openapi`)
          .set(...org.admin.auth)
          .send({ slug: 'ssrf', source: { url: `${site.origin}/specs/petstore.json` } });
        expectErrorEnvelope(res, 400, /private address/);
        expect(site.requests.length).toBe(before);
        expect(await guarded.dataSource.getRepository(OpenApiSpec).countBy({ organizationId: org.id })).toBe(0);
      } finally {
        await guarded.close();
      }
    });
  });
});
