import { readFileSync } from 'node:fs';
import { buildDocuments, DOCUMENT_FILE, PUBLIC_SCHEMAS_FILE, serialize } from '../../scripts/openapi-documents';
import { createTestApp, TestApp } from '../support/test-app';

describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ PUBLIC_URL: 'http://localhost:3000' })));
  afterAll(() => t.close());

  it('is committed up to date (run `npm run openapi:write` after changing a route or DTO)', async () => {
    const { document, publicSchemas } = await buildDocuments();
    expect(readFileSync(PUBLIC_SCHEMAS_FILE, 'utf8')).toBe(serialize(publicSchemas));
    expect(readFileSync(DOCUMENT_FILE, 'utf8')).toBe(serialize(document));
  });

  it('is served at /openapi.json without a token, with Swagger UI at /docs', async () => {
    const json = await t.http.get('/openapi.json').expect(200);
    expect(json.body).toEqual(JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')));
    const ui = await t.http.get('/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger-ui');
  });

  it('names every operation and documents bearer auth', () => {
    const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'));
    for (const [path, item] of Object.entries<Record<string, { operationId?: string }>>(document.paths)) {
      for (const operation of Object.values(item)) expect({ path, operationId: operation.operationId }).toEqual({ path, operationId: expect.any(String) });
    }
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
