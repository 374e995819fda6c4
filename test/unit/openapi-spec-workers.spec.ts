import { SpecDocumentError } from '../../src/modules/openapi-specs/source/spec-documents';
import { SPEC_WORKERS, SpecWorkers } from '../../src/modules/openapi-specs/source/spec-workers';
import { petstore } from '../support/openapi-fixtures';

/** The OpenAPI worker pool: bounded, jobs wait their turn, answers and refusals come back. */
describe('SpecWorkers', () => {
  let workers: SpecWorkers;
  beforeEach(() => (workers = new SpecWorkers()));
  afterEach(() => workers.onApplicationShutdown());

  it('runs at most SPEC_WORKERS jobs at once, the others waiting in order, and renders each', async () => {
    const filesystem = JSON.stringify({ 'openapi.json': petstore() });
    const jobs = Array.from({ length: SPEC_WORKERS + 2 }, () => workers.render(filesystem, {}));
    expect(workers.stats()).toEqual({ workers: SPEC_WORKERS, busy: SPEC_WORKERS, waiting: 2 });
    const bodies = await Promise.all(jobs);
    for (const body of bodies) expect(body).toContain('`GET /pets`');
    expect(workers.stats()).toEqual({ workers: SPEC_WORKERS, busy: 0, waiting: 0 });
  });

  it('parses JSON and YAML in the worker, listing $refs, and refuses what does not parse', async () => {
    const json = await workers.parse(JSON.stringify(petstore()), 'source.text');
    expect(json.format).toBe('json');
    expect(json.isObject).toBe(true);
    expect(JSON.parse(json.json)).toEqual(petstore());
    expect(json.refs).toContainEqual({
      ref: '#/components/schemas/Pets',
      path: ['paths', '/pets', 'get', 'responses', '200', 'content', 'application/json', 'schema', '$ref'],
    });
    const yaml = await workers.parse('openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths: {}\n', 'source.text');
    expect(yaml).toEqual({ format: 'yaml', json: '{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}', isObject: true, isSpec: true, refs: [] });
    expect((await workers.parse('[1, 2]', 'source.text')).isObject).toBe(false);
    await expect(workers.parse('a: [1\nb: : :', 'source.text')).rejects.toThrow(SpecDocumentError);
    await expect(workers.parse('a: 1\na: 2\n', 'source.text')).rejects.toThrow(/source.text is not valid YAML or JSON/);
  });

  it("answers an invalid document's problems naming their place, refuses one that does not parse, and keeps serving", async () => {
    await expect(workers.validate([{ key: 'openapi.json', text: JSON.stringify({ openapi: '3.0.3', info: { title: 'x' }, paths: {} }) }])).resolves.toEqual({
      problems: [{ code: 'REQUIRED', message: "#/info: must have required property 'version'" }],
      total: 1,
    });
    await expect(workers.validate([{ key: 'openapi.json', text: '{"openapi": ' }])).rejects.toThrow(SpecDocumentError);
    await expect(workers.validate([{ key: 'openapi.json', text: JSON.stringify(petstore()) }])).resolves.toEqual({ problems: [], total: 0 });
  });

  it('refuses jobs after shutdown', async () => {
    await workers.onApplicationShutdown();
    await expect(workers.render('{}', {})).rejects.toThrow(/shutting down/);
  });
});
