import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

/** The first failed constraint of each field, named by its path: `members.0: must be a string`. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {})
      .slice(0, 1)
      .map((text) => `${path}: ${stripProperty(text, error.property)}`);
    return own.concat(describeValidationErrors(error.children ?? [], path));
  });
}

function stripProperty(text: string, property: string): string {
  return text.startsWith(`${property} `) ? text.slice(property.length + 1) : text;
}

/** Global input validation: unknown fields are refused, values are converted to the DTO's types. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(describeValidationErrors(errors).join('; ')),
  });
}
