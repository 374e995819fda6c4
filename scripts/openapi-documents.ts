import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppModule } from '../src/app.module';
import { buildOpenApiDocument } from '../src/common/openapi/document';
import { loadConfig } from '../src/config/app-config';

export const OPENAPI_DIR = join(__dirname, '..', 'openapi');
export const DOCUMENT_FILE = join(OPENAPI_DIR, 'quire.json');
export const PUBLIC_SCHEMAS_FILE = join(OPENAPI_DIR, 'public-schemas.json');

type Schemas = Record<string, unknown>;

/** Every `#/components/schemas/X` a value references, directly. */
function referencedSchemas(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referencedSchemas(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')) found.add(item.slice('#/components/schemas/'.length));
      else referencedSchemas(item, found);
    }
  }
  return found;
}

/**
 * The committed documents, computed afresh: Quire's OpenAPI document (from the controllers, in
 * preview mode so no database is needed) and the public schemas it references, copied with their
 * own references from `@gitbook/api`.
 */
export async function buildDocuments(): Promise<{ document: OpenAPIObject; publicSchemas: Schemas }> {
  const config = loadConfig({ PUBLIC_URL: 'http://localhost:3000' });
  const app = await NestFactory.create(AppModule.forRoot(config, 'postgres://preview@127.0.0.1/preview'), { preview: true, logger: false });
  const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as { components: { schemas: Schemas } };

  const bare = buildOpenApiDocument(app, {});
  const own = new Set(Object.keys(bare.components?.schemas ?? {}));
  const publicSchemas: Schemas = {};
  const pending = [...referencedSchemas(bare)].filter((name) => !own.has(name));
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name in publicSchemas) continue;
    const schema = spec.components.schemas[name];
    if (!schema) throw new Error(`Schema ${name} is not in @gitbook/api`);
    publicSchemas[name] = schema;
    pending.push(...[...referencedSchemas(schema)].filter((ref) => !(ref in publicSchemas)));
  }
  const sorted = Object.fromEntries(Object.entries(publicSchemas).sort(([a], [b]) => a.localeCompare(b)));
  const document = buildOpenApiDocument(app, sorted);
  await app.close();
  return { document, publicSchemas: sorted };
}

export function serialize(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
