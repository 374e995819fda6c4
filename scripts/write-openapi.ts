import { mkdirSync, writeFileSync } from 'node:fs';
import { buildDocuments, DOCUMENT_FILE, OPENAPI_DIR, PUBLIC_SCHEMAS_FILE, serialize } from './openapi-documents';

/** Regenerates openapi/quire.json and openapi/public-schemas.json; commit both with the change. */
async function main() {
  const { document, publicSchemas } = await buildDocuments();
  mkdirSync(OPENAPI_DIR, { recursive: true });
  writeFileSync(PUBLIC_SCHEMAS_FILE, serialize(publicSchemas));
  writeFileSync(DOCUMENT_FILE, serialize(document));
  process.stdout.write(`wrote ${DOCUMENT_FILE} (${Object.keys(document.paths).length} paths, ${Object.keys(publicSchemas).length} public schemas)\n`);
}

void main();
