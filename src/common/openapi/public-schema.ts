/**
 * References into the public API description (`@gitbook/api`), whose schemas Quire's responses
 * follow. `npm run openapi:write` copies every referenced schema into `openapi/public-schemas.json`
 * so the served document is self-contained.
 */
export function publicSchema(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

/** The list envelope (`next`, `count`, `items`) around any item schema. */
export function listSchemaOf(item: object) {
  return {
    allOf: [publicSchema('List'), { type: 'object', properties: { items: { type: 'array', items: item } }, required: ['items'] }],
  };
}

/** The list envelope around a public schema. */
export function publicListSchema(name: string) {
  return listSchemaOf(publicSchema(name));
}
