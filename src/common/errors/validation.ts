import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { isBodyOptional, NOT_NULL_CONSTRAINT } from '../validation/presence';

/** At most this many problems are named in one message; the rest are counted ("and 12 more"). */
export const MAX_LISTED_PROBLEMS = 5;
/** A single problem longer than this is cut (a value echoed in a message could be long). */
const MAX_PROBLEM_LENGTH = 300;

/** The first failed constraint of each field, named by its path: `members.0: must be a string`. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    // "must not be null" says more than the type rule that null also fails.
    const first = constraints[NOT_NULL_CONSTRAINT] ?? Object.values(constraints)[0];
    // A field that is absent (optional ones are skipped when absent) is simply required: "query is
    // required", not the first rule its absence also breaks ("must be shorter than 512 characters").
    const missing = error.value === undefined && first !== undefined;
    const own = first === undefined ? [] : [missing ? `${path} is required` : `${path}: ${stripProperty(first, error.property)}`];
    return own.concat(describeValidationErrors(error.children ?? [], path));
  });
}

/** One short message: the first few problems, each capped in length, then how many more there are. */
export function summarizeProblems(problems: string[], max = MAX_LISTED_PROBLEMS): string {
  const listed = problems.slice(0, max).map((problem) => (problem.length > MAX_PROBLEM_LENGTH ? `${problem.slice(0, MAX_PROBLEM_LENGTH)}…` : problem));
  const rest = problems.length - listed.length;
  return rest > 0 ? `${listed.join('; ')}; and ${rest} more` : listed.join('; ');
}

function stripProperty(text: string, property: string): string {
  return text.startsWith(`${property} `) ? text.slice(property.length + 1) : text;
}

/**
 * The global pipe: class-validator with unknown fields refused and values converted to the DTO's
 * types, plus what class-validator cannot see. A body DTO gets a JSON object: no body at all is
 * `400 body is required` unless the DTO is marked `@OptionalBody()`, and `null`, an array or a
 * scalar is refused (ValidationPipe would otherwise validate `null` as an empty object).
 */
class QuireValidationPipe extends ValidationPipe {
  /**
   * Query DTOs an empty query string was found valid for. A request without a query (most GETs,
   * `GET /v1/spaces/{id}` among them) then gets the DTO without class-validator running again:
   * the same empty input through the same pure validators gives the same answer, and running them
   * was more than half of such a request's time in the pipe (docs/scaling.md, "The hot path").
   */
  private readonly validWhenEmpty = new WeakSet<object>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.data === undefined && isDtoClass(metadata.metatype)) {
      if (value === undefined) {
        if (!isBodyOptional(metadata.metatype)) throw new BadRequestException('body is required');
      } else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException('body: must be a JSON object');
      }
    }
    const emptyQuery = metadata.type === 'query' && metadata.data === undefined && isDtoClass(metadata.metatype) && isEmptyObject(value);
    if (emptyQuery && this.validWhenEmpty.has(metadata.metatype as object)) {
      return plainToInstance(metadata.metatype as ClassConstructor<object>, {}, this.transformOptions);
    }
    const result = await super.transform(value, metadata);
    if (emptyQuery && this.isTransformEnabled) this.validWhenEmpty.add(metadata.metatype as object);
    return result;
  }
}

/** An object without own keys (express's query of a URL without one has no prototype). */
function isEmptyObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

function isDtoClass(metatype: unknown): boolean {
  return typeof metatype === 'function' && ![String, Number, Boolean, Array, Object].includes(metatype as never);
}

/** Global input validation: unknown fields are refused, values are converted to the DTO's types. */
export function createValidationPipe(): ValidationPipe {
  return new QuireValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(summarizeProblems(describeValidationErrors(errors))),
  });
}
