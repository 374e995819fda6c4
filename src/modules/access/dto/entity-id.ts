import { applyDecorators } from '@nestjs/common';
import { Matches, ValidationOptions } from 'class-validator';

/** The public description's `EntityId` pattern, with a length cap so no id reaches SQL unbounded. */
export const ENTITY_ID_PATTERN = /^[\w-]{1,64}$/;

/** A resource id given in a body (`parent`, `users`, pointers…): 1 to 64 letters, digits, `_` or `-`. */
export function IsEntityId(options: ValidationOptions = {}): PropertyDecorator {
  return applyDecorators(Matches(ENTITY_ID_PATTERN, { message: 'must be an id (1 to 64 letters, digits, _ or -)', ...options }));
}
