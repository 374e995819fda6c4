import { applyDecorators } from '@nestjs/common';
import { registerDecorator, ValidateIf } from 'class-validator';

/**
 * Presence rules of DTO fields: one pattern for every DTO, instead of class-validator's
 * `@IsOptional()`, which lets `null` through as if the field were absent (and `null` then reached
 * the database: a 500 on a NOT NULL column, or a silently cleared value).
 *
 * - `@Optional()`: the field may be left out; `null` is refused (`title: must not be null`).
 * - `@Nullable()`: the field may be left out or be `null` (only where the API description or the
 *   public schema says the field is nullable, e.g. `defaultRole`, or `parent` of a move).
 * - `@Nullable({ required: true })`: the field must be sent, and `null` is one of its values.
 * - No presence decorator: the field is required and not nullable.
 *
 * The other rules of a field (type, length, enum) only run on a value that is present and not null.
 */
export const NOT_NULL_CONSTRAINT = 'notNull';

/** The field may be absent; when present it must not be null. */
export function Optional(): PropertyDecorator {
  return applyDecorators(
    NotNull(),
    ValidateIf((_object: object, value: unknown) => value !== undefined),
  );
}

/** The field may be null (and, unless `required`, absent): null skips the field's other rules. */
export function Nullable(options: { required?: boolean } = {}): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== null && (options.required === true || value !== undefined));
}

/** Refuses null; the error describer shows this message first, before the field's other rules. */
function NotNull(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: NOT_NULL_CONSTRAINT,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must not be null' },
      validator: { validate: (value: unknown) => value !== null },
    });
}

const OPTIONAL_BODY = Symbol('quire:optional-body');

/**
 * On a body DTO class: the request body may be left out entirely (the public description does not
 * mark this operation's requestBody required). Without it, a request with no body answers
 * `400 body is required` (see the validation pipe).
 */
export function OptionalBody(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(OPTIONAL_BODY, true, target);
  };
}

export function isBodyOptional(metatype: unknown): boolean {
  return typeof metatype === 'function' && Reflect.getMetadata(OPTIONAL_BODY, metatype) === true;
}
