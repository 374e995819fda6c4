import { OpenApiSpecContent } from '../../src/modules/openapi-specs/openapi-spec-content.entity';
import { OpenApiSpecVersion } from '../../src/modules/openapi-specs/openapi-spec-version.entity';
import { OpenApiSpec } from '../../src/modules/openapi-specs/openapi-spec.entity';
import { expectRefused, itChecksAccess } from '../support/access-checks';
import { OrgFixture, addMember, createOrganization } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { PETSTORE_31_YAML, SPLIT_ENTRY, SPLIT_OWNER, SPLIT_PET, SWAGGER_2_YAML, largeSpec, petstore } from '../support/openapi-fixtures';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { TestApp, createTestApp } from '../support/test-app';
import { Website, serveWebsite } from '../support/website-fixture';
import { OpenApiProcessingErrors1800000230000 } from '../../migrations/1800000230000-openapi-processing-errors';
import { newId } from '../../src/common/ids';
import { RevisionWriter, documentPage } from '../../src/modules/content/revision-writer';
import { UNRESOLVED_REF } from '../../src/modules/openapi-specs/source/spec-documents';
import { MAX_PROBLEM_LENGTH, MAX_STORED_PROBLEMS, NOT_VALIDATED } from '../../src/modules/openapi-specs/source/spec-validation';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { TestDatabase, createTestDatabase } from '../support/database';
import { createReaderSite } from '../support/published-builders';
import { createSpace } from '../support/space-builders';
import { ComputedSource } from '../../src/modules/content/revision-page.entity';
import { SpecWorkers } from '../../src/modules/openapi-specs/source/spec-workers';
import { specSourceBodyLimit } from '../../src/common/input-gate/input-gate';

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

  // A spec that parses but does not validate is kept: 'OpenAPI specs with problems', below.
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

const PUBLISHED_BASE_URL = 'http://readers.test/sites';

/**
 * Specs that parse but do not validate (issue 27, point 6): kept as a version, with the public
 * `processingState`, `lastProcessedErrors` and `lastProcessedErrorCount`; only a source that cannot
 * be fetched or parsed is refused.
 */
describe('OpenAPI specs with problems', () => {
  let t: TestApp;
  let site: Website;
  beforeAll(async () => {
    t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', PUBLISHED_BASE_URL });
    site = await serveWebsite({
      '/specs/openapi.yaml': { type: 'application/yaml', body: SPLIT_ENTRY },
      '/specs/schemas/pet.yaml': { type: 'application/yaml', body: SPLIT_PET },
      '/specs/schemas/owner.json': { type: 'application/json', body: SPLIT_OWNER },
      '/specs/missing-pointer.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', './schemas/pet.yaml#/Dog') },
      '/specs/missing-file.yaml': { type: 'application/yaml', body: SPLIT_ENTRY.replace('./schemas/pet.yaml#/Pet', './schemas/nope.yaml#/Pet') },
    });
  });
  afterAll(async () => {
    await site.close();
    await t.close();
  });

  const specs = (org: OrgFixture) => `/v1/orgs/${org.id}/openapi`;
  const spec = (org: OrgFixture, slug: string) => `${specs(org)}/${slug}`;
  const create = (org: OrgFixture, slug: string, source: Record<string, unknown>) =>
    t.http
      .post(specs(org))
      .set(...org.admin.auth)
      .send({ slug, source });
  const put = (org: OrgFixture, slug: string, text: string) =>
    t.http
      .put(spec(org, slug))
      .set(...org.admin.auth)
      .send({ source: { text } });
  const get = (org: OrgFixture, path: string) => t.http.get(path).set(...org.admin.auth);
  const versionCount = async (org: OrgFixture, slug: string) => {
    const row = await t.dataSource.getRepository(OpenApiSpec).findOneBy({ organizationId: org.id, slug });
    return row ? t.dataSource.getRepository(OpenApiSpecVersion).countBy({ specId: row.id }) : 0;
  };

  /** The petstore without `info.version` and with a number for a description: two validator errors. */
  const wrong = () => {
    const document = petstore() as any;
    delete document.info.version;
    document.paths['/pets'].get.responses['200'].description = 42;
    return document;
  };

  it('answers 401 without a token', async () => {
    const org = await createOrganization(t);
    expectErrorEnvelope(await t.http.post(specs(org)).send({ slug: 'x', source: { text: JSON.stringify(wrong()) } }), 401);
  });

  it('keeps a spec that parses but does not validate, with its problems, and reads its content', async () => {
    const org = await createOrganization(t);
    const res = await create(org, 'wrong', { text: JSON.stringify(wrong()) }).expect(201);
    expectContract(res, 'createOpenAPISpec');
    expect(res.body.processingState).toBe('complete');
    expect(res.body.lastProcessedErrors).toEqual([
      { code: 'REQUIRED', message: "#/info: must have required property 'version'" },
      { code: 'TYPE', message: '#/paths/~1pets/get/responses/200/description: must be string' },
    ]);
    expect(res.body.lastProcessedErrorCount).toBe(2);
    expect(res.body.lastVersion).toEqual(expect.any(String));
    expect(await versionCount(org, 'wrong')).toBe(1);

    const read = await get(org, spec(org, 'wrong')).expect(200);
    expectContract(read, 'getOpenAPISpecBySlug');
    expect(read.body.lastProcessedErrors).toEqual(res.body.lastProcessedErrors);
    const listed = await get(org, specs(org)).expect(200);
    expectContract(listed, 'listOpenAPISpecs');
    expect(listed.body.items[0].lastProcessedErrorCount).toBe(2);

    // What parsed is served as it was given.
    const content = await get(org, `${spec(org, 'wrong')}/versions/latest/content`).expect(200);
    expectContract(content, 'getLatestOpenAPISpecVersionContent');
    expect(content.body.filesystem).toEqual({ 'openapi.json': wrong() });
    const raw = await get(org, `${spec(org, 'wrong')}/versions/latest/content/raw`).expect(200);
    expectContract(raw, 'getLatestOpenAPISpecVersionContentRaw');
    expect(raw.body.text).toBe(JSON.stringify(wrong()));
    expectContract(await get(org, `${spec(org, 'wrong')}/versions/latest`).expect(200), 'getLatestOpenAPISpecVersion');
  });

  it('a valid update clears the problems; the same invalid content again brings back the same ones', async () => {
    const org = await createOrganization(t);
    const first = (await put(org, 'api', JSON.stringify(wrong())).expect(201)).body;
    expect(first.lastProcessedErrorCount).toBe(2);

    const fixed = await put(org, 'api', JSON.stringify(petstore())).expect(200);
    expectContract(fixed, 'createOrUpdateOpenAPISpecBySlug');
    expect(fixed.body).toMatchObject({ processingState: 'complete', lastProcessedErrors: [], lastProcessedErrorCount: 0 });
    expect(fixed.body.lastVersion).not.toBe(first.lastVersion);

    // Stored already: not validated again, its stored problems come back with it.
    const again = (await put(org, 'api', JSON.stringify(wrong())).expect(200)).body;
    expect(again.lastProcessedErrors).toEqual(first.lastProcessedErrors);
    expect(again.lastProcessedErrorCount).toBe(2);
    expect(await versionCount(org, 'api')).toBe(3);
    const versions = await get(org, `${spec(org, 'api')}/versions`).expect(200);
    expectContract(versions, 'listOpenAPISpecVersions');
    const states = await t.dataSource.query(
      `SELECT DISTINCT v.processing_state FROM openapi_spec_versions v JOIN openapi_specs s ON s.id = v.spec_id WHERE s.organization_id = $1`,
      [org.id],
    );
    expect(states).toEqual([{ processing_state: 'complete' }]);
  });

  it('lists $refs that land nowhere as problems, caps the list and its messages, and counts them all', async () => {
    const org = await createOrganization(t);
    const broken = petstore() as any;
    broken.paths['/pets'].post.requestBody.content['application/json'].schema.$ref = '#/components/schemas/Dog';
    broken.paths['/pets'].get.responses.default.$ref = './errors.yaml#/Error';
    const res = await create(org, 'broken', { text: JSON.stringify(broken) }).expect(201);
    expect(res.body.lastProcessedErrors.slice(0, 2)).toEqual([
      {
        code: UNRESOLVED_REF,
        message:
          '#/paths/~1pets/get/responses/default/$ref: "./errors.yaml#/Error" points outside the document; a specification given as text cannot reference other files',
      },
      {
        code: UNRESOLVED_REF,
        message:
          '#/paths/~1pets/post/requestBody/content/application~1json/schema/$ref: "#/components/schemas/Dog" points to nothing (no "/components/schemas/Dog" in openapi.json)',
      },
    ]);

    const many = petstore() as any;
    const count = MAX_STORED_PROBLEMS + 10;
    for (let i = 0; i < count; i++)
      many.components.schemas[`S${i}`] = { $ref: `#/components/schemas/${i === 0 ? 'x'.repeat(2 * MAX_PROBLEM_LENGTH) : `Nope${i}`}` };
    const capped = await create(org, 'many', { text: JSON.stringify(many) }).expect(201);
    expectContract(capped, 'createOpenAPISpec');
    expect(capped.body.lastProcessedErrors).toHaveLength(MAX_STORED_PROBLEMS);
    expect(capped.body.lastProcessedErrorCount).toBeGreaterThanOrEqual(count);
    const long = capped.body.lastProcessedErrors[0].message as string;
    expect(long).toHaveLength(MAX_PROBLEM_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    expect(capped.body.lastProcessedErrors.every((error: { message: string }) => error.message.length <= MAX_PROBLEM_LENGTH)).toBe(true);
  });

  it('keeps a version the validator cannot check (OpenAPI 3.2), saying so', async () => {
    const org = await createOrganization(t);
    const res = await create(org, 'next', { text: 'openapi: 3.2.0\ninfo: {title: x, version: "1"}\npaths: {}\n' }).expect(201);
    expect(res.body.lastProcessedErrors).toEqual([
      { code: NOT_VALIDATED, message: 'The document could not be validated: OpenAPI 3.2 is currently unsupported.' },
    ]);
    expect(res.body.lastProcessedErrorCount).toBe(1);
  });

  it('refuses what does not parse (400) and changes nothing', async () => {
    const org = await createOrganization(t);
    await put(org, 'api', JSON.stringify(wrong())).expect(201);
    const before = (await get(org, spec(org, 'api')).expect(200)).body;
    const cases: [string, RegExp][] = [
      ['{ "openapi": "3.0.3" ', /is not valid JSON/],
      ['not: [valid', /not valid YAML or JSON/],
      ['[1, 2]', /its top level must be an object/],
      ['{"hello": "world"}', /has no "openapi" or "swagger" member/],
      ['openapi: 3.0.3\nopenapi: 3.0.3\n', /not valid YAML or JSON/],
    ];
    for (const [text, message] of cases) expectErrorEnvelope(await put(org, 'api', text), 400, message);
    expect(await versionCount(org, 'api')).toBe(1);
    expect((await get(org, spec(org, 'api')).expect(200)).body).toEqual(before);
  });

  it('from a URL: a pointer into a fetched file that lands nowhere is a problem; a file that cannot be fetched refuses', async () => {
    const org = await createOrganization(t);
    const res = await create(org, 'dog', { url: `${site.origin}/specs/missing-pointer.yaml` }).expect(201);
    expectContract(res, 'createOpenAPISpec');
    expect(res.body.lastProcessedErrors[0]).toEqual({
      code: UNRESOLVED_REF,
      message: expect.stringMatching(/"\.\/schemas\/pet\.yaml#\/Dog" points to nothing \(no "\/Dog" in schemas\/pet\.yaml\)$/),
    });
    const content = await get(org, `${spec(org, 'dog')}/versions/latest/content`).expect(200);
    expect(Object.keys(content.body.filesystem)).toEqual(expect.arrayContaining(['missing-pointer.yaml', 'schemas/pet.yaml']));
    expectErrorEnvelope(await create(org, 'nope', { url: `${site.origin}/specs/missing-file.yaml` }), 400, /could not fetch .*nope\.yaml: HTTP 404/);
    expect(await versionCount(org, 'nope')).toBe(0);
  });

  describe('pages', () => {
    async function writePage(org: OrgFixture, spaceId: string, page: ReturnType<typeof documentPage>) {
      await t.app
        .get(SpaceUnitOfWork)
        .run(spaceId, org.admin.user, 'edit', (write) =>
          write.commitRevision((baseId, em) =>
            t.app.get(RevisionWriter).write({ spaceId, parents: [baseId], type: 'edits', createdBy: org.admin.user.id, pages: [page], files: [] }, em),
          ),
        );
    }

    it('a computed page of a spec with problems renders what resolves', async () => {
      const org = await createOrganization(t);
      const broken = wrong();
      broken.paths['/pets'].get.responses.default.$ref = '#/components/responses/Gone';
      await put(org, 'broken', JSON.stringify(broken)).expect(201);
      const space = await createSpace(t, org);
      const pageId = newId();
      const computed = { type: 'builtin:openapi' as const, dependencies: { spec: { ref: { kind: 'openapi' as const, spec: 'broken' } } }, props: {} };
      await writePage(org, space.id, documentPage({ pageId, parentId: null, position: 0, title: 'API', slug: 'api', markdown: '', computed }));
      const reader = await addMember(t, org, 'read');
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
        .set(...reader.auth)
        .expect(200);
      expectContract(res, 'getPageById');
      expect(res.body.markdown).toContain('List all pets');
      expect(res.body.markdown).toContain('Create a pet');
      // The response whose `$ref` lands nowhere is left out; its neighbour stays.
      expect(res.body.markdown).toContain('`200`');
      expect(res.body.markdown).not.toContain('`default`');
    });

    it('a page with openapi-operation, -schemas and -webhook blocks reads back as the public document; the renderer reads the spec with a site token', async () => {
      const org = await createOrganization(t);
      const reader = await createReaderSite(t, org, PUBLISHED_BASE_URL, 'public');
      await put(org, 'petstore', JSON.stringify(wrong())).expect(201);
      const pageId = newId();
      const markdown = [
        '{% openapi-operation spec="petstore" path="/pets" method="get" %}',
        '{% endopenapi-operation %}',
        '',
        '{% openapi-schemas spec="petstore" schemas="Pet,Pets" grouped="false" %}',
        '',
        '{% openapi-webhook spec="petstore" name="newPet" method="post" %}',
        '',
      ].join('\n');
      await writePage(org, reader.spaces.guides, documentPage({ pageId, parentId: null, position: 9, title: 'Pets', slug: 'pets', markdown }));
      const res = await t.http
        .get(`/v1/spaces/${reader.spaces.guides}/content/page/${pageId}?format=document`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getPageById');
      const blocks = res.body.document.nodes.filter((node: { type: string }) => node.type.startsWith('openapi-'));
      expect(blocks.map((node: { type: string; data: unknown }) => [node.type, node.data])).toEqual([
        ['openapi-operation', { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'get' }],
        ['openapi-schemas', { ref: { kind: 'openapi', spec: 'petstore' }, schemas: ['Pet', 'Pets'], grouped: false }],
        ['openapi-webhook', { ref: { kind: 'openapi', spec: 'petstore' }, name: 'newPet', method: 'post' }],
      ]);

      // What the renderer does with such a block: resolves its `ref.spec` against the latest version, with its site token.
      const token = (
        await t.http
          .post('/v1/urls/published')
          .send({ url: `${reader.base}/` })
          .expect(200)
      ).body.apiToken as string;
      const content = await t.http
        .get(`${spec(org, 'petstore')}/versions/latest/content`)
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      expectContract(content, 'getLatestOpenAPISpecVersionContent');
      expect(content.body.filesystem['openapi.json'].paths['/pets'].get.summary).toBe('List all pets');
      // Only that route: the spec itself stays an editor's.
      expectErrorEnvelope(await t.http.get(spec(org, 'petstore')).set('Authorization', `Bearer ${token}`), 403);
    });
  });

  describe('migration', () => {
    let database: TestDatabase;
    let own: TestApp;
    beforeAll(async () => {
      database = await createTestDatabase();
      own = await createTestApp({}, undefined, () => database.url);
    });
    afterAll(async () => {
      await own?.close();
      await database?.drop();
    });

    it('backfills the specs, versions and contents stored before as complete, with no problems; new rows start pending', async () => {
      const org = await createOrganization(own);
      const created = (
        await own.http
          .post(`/v1/orgs/${org.id}/openapi`)
          .set(...org.admin.auth)
          .send({ slug: 'old', source: { text: JSON.stringify(petstore()) } })
          .expect(201)
      ).body;
      const columns = `SELECT table_name, column_name, column_default FROM information_schema.columns
        WHERE table_name LIKE 'openapi_spec%' AND column_name IN ('processing_state', 'last_processed_errors', 'last_processed_error_count', 'validation_errors', 'validation_error_count')
        ORDER BY table_name, column_name`;
      const runner = own.dataSource.createQueryRunner();
      try {
        await runner.startTransaction();
        await new OpenApiProcessingErrors1800000230000().down(runner);
        expect(await runner.query(columns)).toEqual([]);
        await new OpenApiProcessingErrors1800000230000().up(runner);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      const defaults = await own.dataSource.query(columns);
      expect(
        defaults.map((row: { table_name: string; column_name: string; column_default: string }) => [row.table_name, row.column_name, row.column_default]),
      ).toEqual([
        ['openapi_spec_contents', 'validation_error_count', '0'],
        ['openapi_spec_contents', 'validation_errors', "'[]'::jsonb"],
        ['openapi_spec_versions', 'processing_state', "'pending'::text"],
        ['openapi_specs', 'last_processed_error_count', '0'],
        ['openapi_specs', 'last_processed_errors', "'[]'::jsonb"],
        ['openapi_specs', 'processing_state', "'pending'::text"],
      ]);
      expect(await own.dataSource.query(`SELECT processing_state FROM openapi_spec_versions WHERE id = $1`, [created.lastVersion])).toEqual([
        { processing_state: 'complete' },
      ]);
      const read = await own.http
        .get(`/v1/orgs/${org.id}/openapi/old`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(read, 'getOpenAPISpecBySlug');
      expect(read.body).toMatchObject({ processingState: 'complete', lastProcessedErrors: [], lastProcessedErrorCount: 0 });
    });
  });
});

/** Computed pages (section 2.19): a `builtin:openapi` page shows its spec's latest version when content is read. */
describe('computed OpenAPI pages', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const source = (slug: string, props: ComputedSource['props'] = {}): ComputedSource => ({
    type: 'builtin:openapi',
    dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } },
    props,
  });

  /** A new revision of the space holding a hand-written page and the given computed pages (through the space's unit of work). */
  async function writePages(org: OrgFixture, spaceId: string, computed: { title: string; slug: string; source: ComputedSource }[]) {
    const ids = computed.map(() => newId());
    await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((baseId, em) =>
        t.app.get(RevisionWriter).write(
          {
            spaceId,
            parents: [baseId],
            type: 'edits',
            createdBy: org.admin.user.id,
            pages: [
              documentPage({ pageId: newId(), parentId: null, position: 0, title: 'Intro', slug: 'intro', markdown: '# Hello' }),
              ...computed.map((page, index) =>
                documentPage({
                  pageId: ids[index],
                  parentId: null,
                  position: index + 1,
                  title: page.title,
                  slug: page.slug,
                  markdown: '',
                  computed: page.source,
                }),
              ),
            ],
            files: [],
          },
          em,
        ),
      ),
    );
    return ids;
  }

  const putSpec = (org: OrgFixture, slug: string, document: unknown) =>
    t.http
      .put(`/v1/orgs/${org.id}/openapi/${slug}`)
      .set(...org.admin.auth)
      .send({ source: { text: JSON.stringify(document) } });

  it("shows the spec's operations grouped by tag, leaves them out with computed=false, and follows a new version", async () => {
    const org = await createOrganization(t);
    await putSpec(org, 'petstore', petstore()).expect(201);
    const space = await createSpace(t, org);
    const [pageId] = await writePages(org, space.id, [{ title: 'API reference', slug: 'api', source: source('petstore') }]);
    const reader = await addMember(t, org, 'read');
    const page = (query = '') =>
      t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}${query}`)
        .set(...reader.auth)
        .expect(200);

    const res = await page();
    expectContract(res, 'getPageById');
    const markdown: string = res.body.markdown;
    expect(markdown).toContain('# Swagger Petstore');
    expect(markdown).toContain('## pets');
    expect(markdown).toContain('Everything about your pets');
    expect(markdown).toContain('### List all pets');
    expect(markdown).toContain('`GET /pets`');
    expect(markdown).toContain('- `limit` (query, integer (int32), optional): How many items to return');
    expect(markdown).toContain('- `petId` (path, string, required): The id of the pet');
    expect(markdown).toContain('- `application/json`: `Pet`, required');
    expect(markdown).toContain('- `200`: A paged array of pets (`application/json`: `Pets`)');
    expect(markdown).toContain('- `default`: unexpected error (`application/json`: `Error`)');
    // Untagged operations come last, under "default".
    expect(markdown.indexOf('## default')).toBeGreaterThan(markdown.indexOf('## pets'));
    expect(markdown).toContain('`GET /health`');
    expect(markdown).not.toContain('/stores');

    const without = await page('?computed=false');
    expectContract(without, 'getPageById');
    expect(without.body.markdown).toBe('');

    const asDocument = await page('?format=document');
    expectContract(asDocument, 'getPageById');
    expect(JSON.stringify(asDocument.body.document)).toContain('List all pets');

    // The whole revision and the page list render it too; the hand-written page is untouched.
    const revision = await t.http
      .get(`/v1/spaces/${space.id}/content`)
      .set(...reader.auth)
      .expect(200);
    expectContract(revision, 'getCurrentRevision');
    const computedPage = revision.body.pages.find((entry: { id: string }) => entry.id === pageId);
    expect(computedPage.markdown).toBe(markdown);
    expect(revision.body.pages.find((entry: { slug: string }) => entry.slug === 'intro').markdown).toBe('# Hello');
    const offline = await t.http
      .get(`/v1/spaces/${space.id}/content/pages?computed=false`)
      .set(...reader.auth)
      .expect(200);
    expect(offline.body.pages.find((entry: { id: string }) => entry.id === pageId).markdown).toBe('');
    const byPath = await t.http
      .get(`/v1/spaces/${space.id}/content/path/api`)
      .set(...reader.auth)
      .expect(200);
    expect(byPath.body.markdown).toBe(markdown);

    // A new version of the spec: the page follows it, without a new revision.
    await putSpec(org, 'petstore', petstore(true)).expect(200);
    const after = (await page()).body.markdown as string;
    expect(after).toContain('## stores');
    expect(after).toContain('`GET /stores`');
  });

  it('narrows the page with props: one tag, one operation, the models, the info', async () => {
    const org = await createOrganization(t);
    await putSpec(org, 'petstore', petstore(true)).expect(201);
    const space = await createSpace(t, org);
    const [tag, operation, models, info, unknownTag] = await writePages(org, space.id, [
      { title: 'Stores', slug: 'stores', source: source('petstore', { doc: 'tag', page: 'stores' }) },
      { title: 'Get pet', slug: 'get-pet', source: source('petstore', { doc: 'operation', page: '/pets/{petId}', method: 'get' }) },
      { title: 'Models', slug: 'models', source: source('petstore', { doc: 'models' }) },
      { title: 'Info', slug: 'info', source: source('petstore', { doc: 'info' }) },
      { title: 'Nothing', slug: 'nothing', source: source('petstore', { doc: 'operations', page: 'birds' }) },
    ]);
    const body = async (pageId: string) =>
      (
        await t.http
          .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
          .set(...org.admin.auth)
          .expect(200)
      ).body.markdown as string;

    const stores = await body(tag);
    expect(stores).toContain('`GET /stores`');
    expect(stores).not.toContain('/pets');
    const single = await body(operation);
    expect(single).toMatch(/^## Info for a specific pet/);
    expect(single).toContain('`GET /pets/{petId}`');
    expect(single).not.toContain('List all pets');
    const schema = await body(models);
    expect(schema).toContain('## Pet');
    expect(schema).toContain('- `name` (string, required)');
    expect(schema).toContain('## Pets');
    expect(schema).toContain('Type: array of `Pet`');
    const about = await body(info);
    expect(about).toContain('# Swagger Petstore');
    expect(about).toContain('- `https://petstore.example.com/v1`');
    expect(await body(unknownTag)).toContain('no operations tagged `birds`');
  });

  it("gives an empty body when the spec is unknown, deleted, or another organization's", async () => {
    const org = await createOrganization(t);
    const other = await createOrganization(t);
    await putSpec(other, 'theirs', petstore()).expect(201);
    await putSpec(org, 'gone', petstore()).expect(201);
    const space = await createSpace(t, org);
    const ids = await writePages(org, space.id, [
      { title: 'Unknown', slug: 'unknown', source: source('nope') },
      { title: 'Theirs', slug: 'theirs', source: source('theirs') },
      { title: 'Gone', slug: 'gone', source: source('gone') },
    ]);
    await t.http
      .delete(`/v1/orgs/${org.id}/openapi/gone`)
      .set(...org.admin.auth)
      .expect(205);
    for (const pageId of ids) {
      const res = await t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
        .set(...org.admin.auth)
        .expect(200);
      expectContract(res, 'getPageById');
      expect(res.body.markdown).toBe('');
    }
  });
});

/**
 * "One slow request must never stall the others": a computed page of a large spec is rendered in
 * the module's workers, so the server keeps answering while it renders. No time bound here (times
 * go in bench/openapi-specs.bench.ts): the test watches the render start and finish and checks that
 * `/health/live` answered in between, which cannot happen while the event loop renders.
 */
describe('computed OpenAPI pages render off the event loop', () => {
  let t: TestApp;
  // A 1.5 MB text source needs a body larger than the default 1 MB.
  beforeAll(async () => (t = await createTestApp({ BODY_LIMIT: '4mb' })));
  afterAll(() => t.close());

  const source = (slug: string): ComputedSource => ({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } }, props: {} });

  async function computedPage(org: OrgFixture, spaceId: string, slug: string): Promise<string> {
    const pageId = newId();
    await t.app.get(SpaceUnitOfWork).run(spaceId, org.admin.user, 'edit', (write) =>
      write.commitRevision((baseId, em) =>
        t.app.get(RevisionWriter).write(
          {
            spaceId,
            parents: [baseId],
            type: 'edits',
            createdBy: org.admin.user.id,
            pages: [documentPage({ pageId, parentId: null, position: 0, title: 'API', slug: 'api', markdown: '', computed: source(slug) })],
            files: [],
          },
          em,
        ),
      ),
    );
    return pageId;
  }

  /** Watches SpecWorkers.render: how many renders started, and whether one is under way now. */
  function watchRenders() {
    const workers = t.app.get(SpecWorkers);
    const original = workers.render.bind(workers);
    const seen = { started: 0, running: 0 };
    const spy = jest.spyOn(workers, 'render').mockImplementation(async (filesystem, props) => {
      seen.started += 1;
      seen.running += 1;
      try {
        return await original(filesystem, props);
      } finally {
        seen.running -= 1;
      }
    });
    return { seen, restore: () => spy.mockRestore() };
  }

  it('answers /health/live while a large computed page renders, and renders it once for concurrent readers', async () => {
    const org = await createOrganization(t);
    const text = largeSpec(1.5 * 1024 * 1024);
    await t.http
      .put(`/v1/orgs/${org.id}/openapi/big`)
      .set(...org.admin.auth)
      .send({ source: { text } })
      .expect(201);
    const space = await createSpace(t, org);
    const pageId = await computedPage(org, space.id, 'big');
    const read = () =>
      t.http
        .get(`/v1/spaces/${space.id}/content/page/${pageId}`)
        .set(...org.admin.auth)
        .expect(200);

    const { seen, restore } = watchRenders();
    try {
      let done = false;
      // Two readers of the same page at once.
      const reading = Promise.all([read(), read()]).finally(() => (done = true));
      let answeredDuringRender = 0;
      let probes = 0;
      while (!done) {
        const before = seen.running > 0;
        await t.http.get('/health/live').expect(200);
        probes += 1;
        // Started before the probe was sent and still under way when its answer came back.
        if (before && seen.running > 0) answeredDuringRender += 1;
      }
      const [first, second] = await reading;
      expectContract(first, 'getPageById');
      expect(first.body.markdown).toContain('`GET /generated/0/{id}`');
      expect(first.body.markdown).toContain('## group-49');
      expect(second.body.markdown).toBe(first.body.markdown);
      expect(probes).toBeGreaterThan(0);
      expect(answeredDuringRender).toBeGreaterThan(0);
      // The concurrent readers shared one render; a later read comes from the cache.
      expect(seen.started).toBe(1);
      expect((await read()).body.markdown).toBe(first.body.markdown);
      expect(seen.started).toBe(1);
    } finally {
      restore();
    }
  });
});

/**
 * The spec source routes (createOpenAPISpec, createOrUpdateOpenAPISpecBySlug) take a body up to
 * specSourceBodyLimit(OPENAPI_MAX_BYTES) instead of BODY_LIMIT, so a spec of OPENAPI_MAX_BYTES fits
 * as text; every other route keeps BODY_LIMIT.
 */
describe('OpenAPI spec sources: body limit', () => {
  const MAX_BYTES = 200_000;
  const LIMIT = specSourceBodyLimit(MAX_BYTES);
  let t: TestApp;
  let org: OrgFixture;
  beforeAll(async () => {
    t = await createTestApp({ BODY_LIMIT: '100kb', OPENAPI_MAX_BYTES: String(MAX_BYTES) });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const api = () => `/v1/orgs/${org.id}/openapi`;
  /** A raw JSON body of exactly `bytes` bytes whose source text is filler. */
  const bodyOf = (bytes: number) => {
    const head = '{"source":{"text":"';
    const tail = '"},"slug":"filler"}';
    return head + 'a'.repeat(bytes - head.length - tail.length) + tail;
  };
  const send = (method: 'post' | 'put', url: string, body: string) =>
    t.http[method](url)
      .set(...org.admin.auth)
      .set('Content-Type', 'application/json')
      .send(body);
  /** A valid spec text of exactly `bytes` bytes (JSON, padded with trailing spaces). */
  const specOf = (bytes: number) => {
    const text = largeSpec(bytes - 20_000);
    if (Buffer.byteLength(text) > bytes) throw new Error('fixture too large');
    return text + ' '.repeat(bytes - Buffer.byteLength(text));
  };

  it('lets a body of the spec limit through (n) and refuses one byte more with 413 (n + 1), on POST and PUT', async () => {
    expect(LIMIT).toBeGreaterThan(100 * 1024);
    // At the limit the body passes the gate; its text is larger than OPENAPI_MAX_BYTES, which the module refuses.
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT)), 400, /larger than 200000 bytes/);
    expectErrorEnvelope(await send('post', api(), bodyOf(LIMIT + 1)), 413);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT)), 400);
    expectErrorEnvelope(await send('put', `${api()}/filler`, bodyOf(LIMIT + 1)), 413);
  });

  it('stores a text of OPENAPI_MAX_BYTES (n) larger than BODY_LIMIT, and refuses one byte more (n + 1)', async () => {
    const atLimit = specOf(MAX_BYTES);
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BYTES);
    const created = await t.http
      .put(`${api()}/big`)
      .set(...org.admin.auth)
      .send({ source: { text: atLimit } })
      .expect(201);
    expectContract(created, 'createOrUpdateOpenAPISpecBySlug');
    const raw = await t.http
      .get(`${api()}/big/versions/latest/content/raw`)
      .set(...org.admin.auth)
      .expect(200);
    expect(raw.body.text).toBe(atLimit);
    expectErrorEnvelope(
      await t.http
        .post(api())
        .set(...org.admin.auth)
        .send({ slug: 'bigger', source: { text: `${atLimit} ` } }),
      400,
      /^source\.text: the specification is larger than 200000 bytes$/,
    );
  });

  it('keeps BODY_LIMIT on the other routes of the module', async () => {
    await t.http
      .put(`${api()}/small`)
      .set(...org.admin.auth)
      .send({ source: { text: specOf(30_000) } })
      .expect(201);
    expectErrorEnvelope(
      await t.http
        .patch(`${api()}/small`)
        .set(...org.admin.auth)
        .send({ visibility: 'x'.repeat(150_000) }),
      413,
    );
    expectErrorEnvelope(
      await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title: 'x'.repeat(150_000) }),
      413,
    );
  });
});
