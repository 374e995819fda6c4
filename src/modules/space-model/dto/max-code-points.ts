import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * A string of at most `max` characters, counted as Unicode code points: the way PostgreSQL's
 * `char_length` and JSON Schema's `maxLength` count them, so an emoji counts once, not as the two
 * UTF-16 units class-validator's `MaxLength` would count.
 */
export function MaxCodePoints(max: number, options: ValidationOptions = {}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'maxCodePoints',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options: { message: (args: ValidationArguments) => `${args.property} must be a string of at most ${max} characters`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
      },
    });
}
