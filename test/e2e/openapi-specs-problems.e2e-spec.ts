import { OpenApiProcessingErrors1800000230000 } from '../../migrations/1800000230000-openapi-processing-errors';
import { newId } from '../../src/common/ids';
import { documentPage, RevisionWriter } from '../../src/modules/content/revision-writer';
import { OpenApiSpecVersion } from '../../src/modules/openapi-specs/openapi-spec-version.entity';
import { OpenApiSpec } from '../../src/modules/openapi-specs/openapi-spec.entity';
import { UNRESOLVED_REF } from '../../src/modules/openapi-specs/source/spec-documents';
import { MAX_PROBLEM_LENGTH, MAX_STORED_PROBLEMS, NOT_VALIDATED } from '../../src/modules/openapi-specs/source/spec-validation';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTestDatabase, TestDatabase } from '../support/database';
import { petstore, SPLIT_ENTRY, SPLIT_OWNER, SPLIT_PET } from '../support/openapi-fixtures';
import { createReaderSite } from '../support/published-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { serveWebsite, Website } from '../support/website-fixture';

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
