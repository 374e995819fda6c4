import { validate } from '@readme/openapi-parser';
import { pathAtLine, SpecDocumentError, toPointer } from './spec-documents';

/** How many of the validator's errors a 400 quotes. */
const QUOTED_ERRORS = 3;

/**
 * Validates one self-contained document (see `bundleForValidation`) as Swagger 2.0, OpenAPI 3.0 or
 * 3.1 with `@readme/openapi-parser`. External resolution is off: the document holds every file it
 * uses, so the parser reads no file and calls no server. Throws a SpecDocumentError naming the
 * first errors and their place in the document.
 */
export async function validateSpecDocument(bundle: Record<string, unknown>): Promise<void> {
  // The parser dereferences in place: the errors' code frames quote this object as it leaves.
  let result;
  try {
    result = await validate(bundle as never, { resolve: { external: false }, timeoutMs: 30_000 });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    throw new SpecDocumentError(`The document is not a valid OpenAPI specification: ${message}`);
  }
  if (result.valid) return;
  const quoted = result.errors.slice(0, QUOTED_ERRORS).map((error) => describe(error.message, bundle));
  const more = result.errors.length + (result.additionalErrors ?? 0) - quoted.length;
  throw new SpecDocumentError(`The document is not a valid OpenAPI specification: ${quoted.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`);
}

/**
 * One error as `#/paths/~1pets/get/responses: must be object`: the validator's first line without
 * its keyword (REQUIRED, TYPE…), placed by the line its code frame points at.
 */
export function describe(message: string, document: unknown): string {
  const [first, ...rest] = message.split('\n');
  const text = first.replace(/^[A-Z_]+ /, '').trim();
  const pointed = rest.find((line) => /^>\s*\d+\s*\|/.test(line));
  if (!pointed) return text;
  const path = pathAtLine(document, Number(/^>\s*(\d+)/.exec(pointed)?.[1]));
  return path ? `${toPointer(path)}: ${text}` : text;
}
