import Ajv, { type ValidateFunction } from 'ajv';

/**
 * Shapes of the manifest parts the DTO only knows as objects (blocks, content sources, external
 * links), as the public description writes them, so what Quire stores it can always present.
 */
const text = (min: number, max: number) => ({ type: 'string', minLength: min, maxLength: max });
const MANIFEST_PARTS = {
  type: 'object',
  properties: {
    blocks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title'],
        properties: {
          id: text(1, 100),
          title: text(2, 40),
          description: text(0, 150),
          icon: text(0, 2048),
          urlUnfurl: { type: 'array', maxItems: 50, items: text(1, 2048) },
          markdown: { type: 'object', required: ['codeblock', 'body'], properties: { codeblock: text(1, 100), body: text(1, 100) } },
        },
      },
    },
    contentSources: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'configuration'],
        properties: {
          id: text(1, 100),
          title: text(2, 40),
          description: text(0, 150),
          icon: text(0, 2048),
          configuration: { type: 'object', required: ['componentId'], properties: { componentId: text(1, 100) } },
        },
      },
    },
    externalLinks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url', 'label'],
        properties: { url: { type: 'string', pattern: '^https?://', maxLength: 2048 }, label: text(1, 100) },
      },
    },
    secrets: { type: 'object', maxProperties: 20, additionalProperties: text(0, 10_000) },
    contentSecurityPolicy: { oneOf: [text(0, 10_000), { type: 'object', additionalProperties: text(0, 2048) }] },
  },
};

// Compiled on the first manifest, not at module load: every server start and test file loads this module, few publish.
let compiled: ValidateFunction | undefined;
const manifestPartsValidator = () => (compiled ??= new Ajv({ allErrors: false, strict: false }).compile(MANIFEST_PARTS));

/** The first problem of the manifest's parts (`blocks/0/title must NOT have fewer than 2 characters`), or null. */
export function manifestProblem(parts: Record<string, unknown>): string | null {
  const manifestParts = manifestPartsValidator();
  if (manifestParts(parts)) return null;
  const error = manifestParts.errors![0];
  return `${error.instancePath.slice(1).replace(/\//g, '.')}: ${error.message ?? 'is invalid'}`;
}
