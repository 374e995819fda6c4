import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, IsUrl, Matches, MaxLength, MinLength, registerDecorator, ValidateNested } from 'class-validator';
import { Optional } from '../../../common/validation/presence';
import { OPENAPI_SPEC_VISIBILITIES, type OpenApiSpecVisibility } from '../openapi-spec.entity';

/** `OpenAPISpecSlug` of the public description. */
export const SPEC_SLUG = { min: 1, max: 100, pattern: /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/ };
export const SPEC_URL_MAX = 2048;

/** `OpenAPISpecSource`: exactly one of `url` (fetched by Quire) or `text` (the document itself). */
export class OpenApiSpecSourceDto {
  @ApiPropertyOptional({ format: 'uri', maxLength: SPEC_URL_MAX, description: 'Fetch the specification from this http(s) URL' })
  @Optional()
  @IsString()
  @MaxLength(SPEC_URL_MAX)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true }, { message: 'must be an http or https URL' })
  url?: string;

  @ApiPropertyOptional({ minLength: 1, description: 'The specification as text (JSON or YAML)' })
  @Optional()
  @IsString()
  @MinLength(1)
  text?: string;
}

/** On `source`: exactly one of its two fields. */
function ExactlyOneSource(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'exactlyOneSource',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'must have exactly one of url or text' },
      validator: {
        validate: (value: unknown) =>
          !!value && typeof value === 'object' && ((value as OpenApiSpecSourceDto).url !== undefined) !== ((value as OpenApiSpecSourceDto).text !== undefined),
      },
    });
}

export class OpenApiSpecSourceBodyDto {
  @ApiProperty({ type: OpenApiSpecSourceDto })
  @IsObject()
  @ExactlyOneSource()
  @ValidateNested()
  @Type(() => OpenApiSpecSourceDto)
  source: OpenApiSpecSourceDto;
}

/** `createOpenAPISpec`. */
export class CreateOpenApiSpecDto extends OpenApiSpecSourceBodyDto {
  @ApiProperty({ minLength: SPEC_SLUG.min, maxLength: SPEC_SLUG.max, pattern: SPEC_SLUG.pattern.source })
  @IsString()
  @MinLength(SPEC_SLUG.min)
  @MaxLength(SPEC_SLUG.max)
  @Matches(SPEC_SLUG.pattern, { message: 'must be letters and digits in groups joined by single hyphens' })
  slug: string;
}

/** `createOrUpdateOpenAPISpecBySlug`: the slug is the path's. */
export class PutOpenApiSpecDto extends OpenApiSpecSourceBodyDto {}

/** `updateOpenAPISpecBySlug`. */
export class UpdateOpenApiSpecDto {
  @ApiProperty({ enum: OPENAPI_SPEC_VISIBILITIES })
  @IsIn(OPENAPI_SPEC_VISIBILITIES)
  visibility: OpenApiSpecVisibility;
}
