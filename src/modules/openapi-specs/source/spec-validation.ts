import { validate } from '@readme/openapi-parser';
import { pathAtLine, SpecProblem, toPointer } from './spec-documents';
import { schemaErrors } from './spec-schema';

/**
 * Most problems kept with a version (`lastProcessedErrors`); `lastProcessedErrorCount` still counts
 * them all. A spec broken everywhere would otherwise store (and answer on every read of the spec)
 * thousands of messages nobody reads past the first screen.
 */
export const MAX_STORED_PROBLEMS = 50;
/** Longest message kept, in characters (a validator message quoting a long value is cut, ending with `…`). */
export const MAX_PROBLEM_LENGTH = 500;

/** Code of a document the validator could not check at all (e.g. OpenAPI 3.2, which it does not support). */
export const NOT_VALIDATED = 'NOT_VALIDATED';

/** The problems of one document: the first MAX_STORED_PROBLEMS, and how many there were in all. */
export interface SpecProblems {
  problems: SpecProblem[];
  total: number;
}

/**
 * Validates one self-contained document (see `bundleForValidation`) as Swagger 2.0, OpenAPI 3.0 or
 * 3.1: first against the OpenAPI schemas (`spec-schema.ts`), then, when that finds nothing, with
 * `@readme/openapi-parser` (its checks beyond the schema). External resolution is off: the document
 * holds every file it uses, so the parser reads no file and calls no server. A document that does
 * not validate is not refused here: its problems are returned, each named with its place.
 */
export async function validateSpecDocument(bundle: Record<string, unknown>, room = MAX_STORED_PROBLEMS): Promise<SpecProblems> {
  const structural = schemaErrors(bundle);
  if (structural && structural.length > 0) {
    const problems = structural
      .slice(0, Math.max(0, room))
      .map((error) => ({ message: clip(`${error.pointer}: ${error.message}`), code: error.keyword.toUpperCase() }));
    return { problems, total: structural.length };
  }
  // The parser dereferences in place: the errors' code frames quote this object as it leaves.
  let result;
  try {
    result = await validate(bundle as never, { resolve: { external: false }, timeoutMs: 30_000 });
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    return { problems: [{ message: clip(`The document could not be validated: ${message}`), code: NOT_VALIDATED }], total: 1 };
  }
  if (result.valid) return { problems: [], total: 0 };
  // Placing an error walks the document: only the ones kept are placed.
  const problems = result.errors.slice(0, Math.max(0, room)).map((error) => describeProblem(error.message, bundle));
  return { problems, total: result.errors.length + (result.additionalErrors ?? 0) };
}

/** The validator's message as a stored problem: its keyword (REQUIRED, TYPE…) as the code, the rest placed and clipped. */
export function describeProblem(message: string, document: unknown): SpecProblem {
  const keyword = /^([A-Z_]+) /.exec(message)?.[1];
  return { message: clip(describe(message, document)), code: keyword ?? 'INVALID' };
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

/** A message cut to MAX_PROBLEM_LENGTH characters. */
export function clip(message: string): string {
  return message.length <= MAX_PROBLEM_LENGTH ? message : `${message.slice(0, MAX_PROBLEM_LENGTH - 1)}…`;
}

/** `$ref` problems first (they are found first, and explain validator errors at the same places), then the validator's. */
export function mergeProblems(refs: SpecProblem[], validated: SpecProblems): SpecProblems {
  const problems = [...refs.map((problem) => ({ ...problem, message: clip(problem.message) })), ...validated.problems].slice(0, MAX_STORED_PROBLEMS);
  return { problems, total: refs.length + validated.total };
}
