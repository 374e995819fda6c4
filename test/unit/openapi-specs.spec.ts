import { openApiSlugOf } from '../../src/modules/openapi-specs/openapi-computed.renderer';
import { renderOpenApiMarkdown } from '../../src/modules/openapi-specs/render/openapi-markdown';
import {
  BUNDLE_FILES_KEY,
  bundleForValidation,
  contentHash,
  findRefs,
  parseSpecText,
  pathAtLine,
  prepareForValidation,
  resolvePointer,
  SpecDocumentError,
  splitRef,
  toPointer,
  UNRESOLVED_REF,
} from '../../src/modules/openapi-specs/source/spec-documents';
import {
  clip,
  describe as describeError,
  MAX_PROBLEM_LENGTH,
  MAX_STORED_PROBLEMS,
  mergeProblems,
  NOT_VALIDATED,
  validateSpecDocument,
} from '../../src/modules/openapi-specs/source/spec-validation';
import { schemaErrors } from '../../src/modules/openapi-specs/source/spec-schema';
import { petstore } from '../support/openapi-fixtures';

describe('OpenAPI spec documents', () => {
  describe('parseSpecText', () => {
    it('reads JSON as JSON and anything else as YAML', () => {
      expect(parseSpecText('{"a": 1}', 'x')).toEqual({ format: 'json', document: { a: 1 } });
      expect(parseSpecText('a: 1\nb: [x]\n', 'x')).toEqual({ format: 'yaml', document: { a: 1, b: ['x'] } });
      // YAML flow style that is not JSON.
      expect(parseSpecText('{a: 1}', 'x')).toEqual({ format: 'yaml', document: { a: 1 } });
    });

    it('refuses broken text, duplicate keys and alias bombs, naming the file', () => {
      expect(() => parseSpecText('a: [1\nb: 2', 'spec.yaml')).toThrow(/spec\.yaml is not valid YAML or JSON/);
      expect(() => parseSpecText('a: 1\na: 2\n', 'spec.yaml')).toThrow(SpecDocumentError);
      const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (let i = 1; i < 12; i++)
        bomb.push(
          `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(96 + i)}`)
            .join(',')}]`,
        );
      expect(() => parseSpecText(bomb.join('\n'), 'bomb.yaml')).toThrow(SpecDocumentError);
    });
  });

  describe('refs and pointers', () => {
    it('finds every string $ref in document order, with its place', () => {
      const refs = findRefs({ a: { $ref: '#/x' }, b: [{ $ref: 'other.yaml#/y' }], properties: { $ref: { type: 'string' } } }, 'x');
      expect(refs).toEqual([
        { ref: '#/x', path: ['a', '$ref'] },
        { ref: 'other.yaml#/y', path: ['b', 0, '$ref'] },
      ]);
      expect(toPointer(['paths', '/pets', 'get', 'application/json', 'a~b'])).toBe('#/paths/~1pets/get/application~1json/a~0b');
    });

    it('refuses a document nested deeper than the bound', () => {
      let deep: unknown = 1;
      for (let i = 0; i < 600; i++) deep = { a: deep };
      expect(() => findRefs(deep, 'deep.json')).toThrow(/nested deeper than 512/);
    });

    it('splits refs and resolves JSON pointers (escaped and percent-encoded)', () => {
      expect(splitRef('a.yaml#/b')).toEqual({ file: 'a.yaml', pointer: '/b' });
      expect(splitRef('#/b')).toEqual({ file: '', pointer: '/b' });
      expect(splitRef('a.yaml')).toEqual({ file: 'a.yaml', pointer: '' });
      const doc = { paths: { '/pets': { get: 1 } }, 'a b': 2, list: [10, 20] };
      expect(resolvePointer(doc, '/paths/~1pets/get')).toBe(1);
      expect(resolvePointer(doc, '/a%20b')).toBe(2);
      expect(resolvePointer(doc, '/list/1')).toBe(20);
      expect(resolvePointer(doc, '')).toBe(doc);
      expect(resolvePointer(doc, '/nope')).toBeUndefined();
      expect(resolvePointer(doc, '/paths/~1pets/get/deeper')).toBeUndefined();
    });

    it('bundles other files under x-quire-files and rewrites every ref into the bundle', () => {
      const entry = { key: 'openapi.yaml', document: { a: { $ref: 'pet.yaml#/Pet' }, b: { $ref: '#/a' } } };
      const pet = { key: 'pet.yaml', document: { Pet: { owner: { $ref: '#/Owner' }, back: { $ref: 'openapi.yaml#/b' } }, Owner: {} } };
      const keys: Record<string, string> = { 'pet.yaml#/Pet': 'pet.yaml', 'openapi.yaml#/b': 'openapi.yaml' };
      const bundle = bundleForValidation(entry, [pet], (_file, ref) => keys[ref]);
      expect(bundle).toEqual({
        a: { $ref: `#/${BUNDLE_FILES_KEY}/0/Pet` },
        b: { $ref: '#/a' },
        [BUNDLE_FILES_KEY]: { '0': { Pet: { owner: { $ref: `#/${BUNDLE_FILES_KEY}/0/Owner` }, back: { $ref: '#/b' } }, Owner: {} } },
      });
      // The originals are untouched (they are what gets stored).
      expect(entry.document.a.$ref).toBe('pet.yaml#/Pet');
    });

    it('prepares files fetched from URLs: refs between them checked, then bundled; a broken one listed and left out of the bundle only', () => {
      const entry = { key: 'openapi.yaml', url: 'http://h/specs/openapi.yaml', text: 'a:\n  $ref: "schemas/pet.yaml#/Pet"\n' };
      const pet = { key: 'schemas/pet.yaml', url: 'http://h/specs/schemas/pet.yaml', text: 'Pet:\n  type: object\n  up:\n    $ref: "../openapi.yaml#/a"\n' };
      expect(prepareForValidation([entry, pet])).toEqual({
        bundle: {
          a: { $ref: `#/${BUNDLE_FILES_KEY}/0/Pet` },
          [BUNDLE_FILES_KEY]: { '0': { Pet: { type: 'object', up: { $ref: '#/a' } } } },
        },
        problems: [],
      });
      const dog = prepareForValidation([{ ...entry, text: 'a:\n  $ref: "schemas/pet.yaml#/Dog"\n  b: 1\n' }, pet]);
      expect(dog.problems).toEqual([
        { code: UNRESOLVED_REF, message: 'openapi.yaml #/a/$ref: "schemas/pet.yaml#/Dog" points to nothing (no "/Dog" in schemas/pet.yaml)' },
      ]);
      expect(dog.bundle.a).toEqual({ b: 1 });
      expect(prepareForValidation([{ ...entry, text: 'a:\n  $ref: "other.yaml"\n' }, pet]).problems[0].message).toMatch(
        /points to a file that is not part of the specification/,
      );
      expect(prepareForValidation([{ key: 'openapi.json', text: '{"a": {"$ref": "#/b"}, "c": {"$ref": "other.yaml#/x"}}' }]).problems).toEqual([
        { code: UNRESOLVED_REF, message: '#/a/$ref: "#/b" points to nothing (no "/b" in openapi.json)' },
        {
          code: UNRESOLVED_REF,
          message: '#/c/$ref: "other.yaml#/x" points outside the document; a specification given as text cannot reference other files',
        },
      ]);
    });

    it('hashes the same files the same way, whatever their order, and any change differently', () => {
      const a = contentHash([
        { key: 'openapi.yaml', text: 'x' },
        { key: 'pet.yaml', text: 'y' },
      ]);
      expect(
        contentHash([
          { key: 'pet.yaml', text: 'y' },
          { key: 'openapi.yaml', text: 'x' },
        ]),
      ).toBe(a);
      expect(
        contentHash([
          { key: 'openapi.yaml', text: 'x ' },
          { key: 'pet.yaml', text: 'y' },
        ]),
      ).not.toBe(a);
      // Key and text boundaries cannot be shifted into one another.
      expect(contentHash([{ key: 'ab', text: 'c' }])).not.toBe(contentHash([{ key: 'a', text: 'bc' }]));
    });
  });

  describe('error places', () => {
    it('finds the member on a line of the pretty-printed document', () => {
      const doc = {
        openapi: '3.0.3',
        info: { title: 'x' },
        paths: { '/a': { get: { responses: { '200': { description: 1 } } } } },
        empty: {},
        list: [1, { k: 2 }],
      };
      const lines = JSON.stringify(doc, null, 2).split('\n');
      const lineOf = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
      expect(pathAtLine(doc, lineOf('"title"'))).toEqual(['info', 'title']);
      expect(pathAtLine(doc, lineOf('"description"'))).toEqual(['paths', '/a', 'get', 'responses', '200', 'description']);
      expect(pathAtLine(doc, lineOf('"empty"'))).toEqual(['empty']);
      expect(pathAtLine(doc, lineOf('"k"'))).toEqual(['list', 1, 'k']);
      expect(pathAtLine(doc, 1)).toEqual([]);
      expect(pathAtLine(doc, lines.length + 5)).toBeUndefined();
    });

    it("turns the validator's message into a pointer and a sentence", () => {
      const doc = { info: { title: 'x' } };
      expect(describeError('REQUIRED must have required property \'version\'\n\n  1 | {\n> 2 |   "info": {\n    |   ^ here', doc)).toBe(
        "#/info: must have required property 'version'",
      );
      expect(describeError('Supplied schema is not a valid API definition.', doc)).toBe('Supplied schema is not a valid API definition.');
    });

    it('validates Swagger 2.0, OpenAPI 3.0 and 3.1; lists the problems of the rest, capped in count and length', async () => {
      const valid = { problems: [], total: 0 };
      await expect(validateSpecDocument(petstore() as Record<string, unknown>)).resolves.toEqual(valid);
      await expect(
        validateSpecDocument({ swagger: '2.0', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } } }),
      ).resolves.toEqual(valid);
      await expect(
        validateSpecDocument({ openapi: '3.1.0', info: { title: 'x', version: '1' }, webhooks: {}, components: { schemas: { A: {} } } }),
      ).resolves.toEqual(valid);
      expect(await validateSpecDocument({ openapi: '3.2.0', info: { title: 'x', version: '1' }, paths: {} })).toEqual({
        problems: [{ code: NOT_VALIDATED, message: 'The document could not be validated: OpenAPI 3.2 is currently unsupported.' }],
        total: 1,
      });
      // Sound for the schemas, so the parser's own checks run.
      const twice = petstore() as any;
      twice.paths['/pets'].post.operationId = 'listPets';
      const duplicate = await validateSpecDocument(twice);
      expect(duplicate.total).toBe(1);
      expect(duplicate.problems[0].message).toMatch(/listPets/);
      const many = petstore() as any;
      delete many.info.version;
      for (let i = 0; i < 5; i++) many.paths[`/x${i}`] = { get: { responses: { '200': { description: i } } } };
      const found = await validateSpecDocument(many);
      expect(found.problems[0]).toEqual({ code: 'REQUIRED', message: "#/info: must have required property 'version'" });
      expect(found.problems[1]).toEqual({ code: 'TYPE', message: '#/paths/~1x0/get/responses/200/description: must be string' });
      expect(found.total).toBeGreaterThanOrEqual(found.problems.length);
      expect((await validateSpecDocument(structuredClone(many), 1)).problems).toHaveLength(1);
      expect(clip('x'.repeat(MAX_PROBLEM_LENGTH))).toHaveLength(MAX_PROBLEM_LENGTH);
      expect(clip('x'.repeat(MAX_PROBLEM_LENGTH + 1))).toBe(`${'x'.repeat(MAX_PROBLEM_LENGTH - 1)}…`);
      const refs = Array.from({ length: MAX_STORED_PROBLEMS + 3 }, (_, i) => ({ code: UNRESOLVED_REF, message: `ref ${i}` }));
      const merged = mergeProblems(refs, { problems: [{ code: 'TYPE', message: 'late' }], total: 7 });
      expect(merged.problems).toHaveLength(MAX_STORED_PROBLEMS);
      expect(merged.total).toBe(MAX_STORED_PROBLEMS + 3 + 7);
    });
  });
});

describe('OpenAPI markdown', () => {
  it('renders Swagger 2.0 body parameters and formData as such', () => {
    const markdown = renderOpenApiMarkdown({
      'swagger.json': {
        swagger: '2.0',
        info: { title: 'Old', version: '1' },
        consumes: ['application/x-www-form-urlencoded'],
        paths: {
          '/upload': {
            post: {
              summary: 'Upload',
              deprecated: true,
              parameters: [
                { name: 'file', in: 'formData', type: 'string', required: true },
                { name: 'body', in: 'body', schema: { type: 'array', items: { $ref: '#/definitions/Item' } } },
              ],
              responses: { '200': { description: 'ok', schema: { $ref: '#/definitions/Item' } } },
            },
          },
        },
        definitions: { Item: { type: 'object', properties: { id: { type: 'string', enum: ['a', 'b'] } } } },
      },
    });
    expect(markdown).toContain('**Deprecated.**');
    expect(markdown).toContain('- `file` (formData, string, required)');
    expect(markdown).toContain('- `application/x-www-form-urlencoded`: array of `Item`');
    expect(markdown).toContain('- `200`: ok (`Item`)');
  });

  it('follows refs into other files of the spec', () => {
    const markdown = renderOpenApiMarkdown({
      'openapi.yaml': {
        openapi: '3.0.3',
        info: { title: 'Split', version: '1' },
        paths: { '/pets': { $ref: 'paths/pets.yaml' } },
      },
      'paths/pets.yaml': {
        get: { summary: 'From another file', parameters: [{ $ref: '../params.yaml#/Limit' }], responses: { '200': { description: 'ok' } } },
      },
      'params.yaml': { Limit: { name: 'limit', in: 'query', schema: { type: 'integer' } } },
    });
    expect(markdown).toContain('### From another file');
    expect(markdown).toContain('- `limit` (query, integer, optional)');
  });

  it('keeps text on one line in lists and survives a spec with nothing in it', () => {
    const markdown = renderOpenApiMarkdown({
      'openapi.json': {
        openapi: '3.0.3',
        info: { title: 'x', version: '1' },
        paths: { '/a': { get: { tags: ['t'], parameters: [{ name: 'q', in: 'query', description: 'line one\nline two' }], responses: {} } } },
      },
    });
    expect(markdown).toContain('- `q` (query, any, optional): line one line two');
    expect(renderOpenApiMarkdown({})).toBe('\n');
    expect(renderOpenApiMarkdown({ 'x.json': { openapi: '3.0.3' } }, { doc: 'models' })).toContain('defines no models');
  });

  it('knows which computed sources are OpenAPI pages', () => {
    expect(openApiSlugOf({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'openapi', spec: 'api' } } }, props: {} })).toBe('api');
    expect(openApiSlugOf({ type: 'builtin:translation', dependencies: { spec: { ref: { kind: 'openapi', spec: 'api' } } }, props: {} })).toBeUndefined();
    expect(openApiSlugOf({ type: 'builtin:openapi', dependencies: {}, props: {} })).toBeUndefined();
  });
});

describe('OpenAPI schema check', () => {
  it('places each problem by its instance path, one per place, the deepest kept', () => {
    const document = petstore() as any;
    document.info.extra = 1;
    document.paths['/pets'].get.responses['200'].description = 42;
    document.paths['/pets'].post.responses['201'] = { description: 'ok', links: 5 };
    expect(schemaErrors(document)).toEqual([
      { pointer: '#/info', keyword: 'additionalProperties', message: 'must NOT have additional properties: "extra"' },
      { pointer: '#/paths/~1pets/get/responses/200/description', keyword: 'type', message: 'must be string' },
      { pointer: '#/paths/~1pets/post/responses/201/links', keyword: 'type', message: 'must be object' },
    ]);
    expect(schemaErrors(petstore())).toEqual([]);
  });

  it('checks Swagger 2.0 and OpenAPI 3.1, and leaves 3.2 and a non-string version to the parser', () => {
    expect(schemaErrors({ swagger: '3.0', info: { title: 'x', version: '1' }, paths: {} })).toEqual([
      { pointer: '#/swagger', keyword: 'enum', message: 'must be equal to one of the allowed values: ["2.0"]' },
    ]);
    expect(schemaErrors({ openapi: '3.1.0', info: { title: 'x', version: '1' }, webhooks: {}, components: { schemas: { A: { type: 'object' } } } })).toEqual(
      [],
    );
    expect(schemaErrors({ openapi: '3.1.0', info: { title: 'x' }, paths: {} })).toEqual([
      { pointer: '#/info', keyword: 'required', message: "must have required property 'version'" },
    ]);
    expect(schemaErrors({ openapi: '3.2.0', info: { title: 'x', version: '1' }, paths: {} })).toBeUndefined();
    expect(schemaErrors({ openapi: 3, info: { title: 'x', version: '1' }, paths: {} })).toBeUndefined();
  });
});
