import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBase64, IsIn, IsObject, IsString, Length, MaxLength } from 'class-validator';
import { INTEGRATION_SCOPES } from '../../../common/access/script-access';
import { Optional } from '../../../common/validation/presence';

/** Largest built script accepted (bytes of UTF-8); the request as a whole stays within BODY_LIMIT. */
export const SCRIPT_MAX_BYTES = 1_000_000;
/** Largest icon, decoded (the CLI's own limit). */
export const ICON_MAX_BYTES = 250 * 1024;
export const RUNTIMES = ['v1', 'v2'] as const;
export const TARGETS = ['all', 'site', 'space', 'organization'] as const;
export const VISIBILITIES = ['public', 'private', 'unlisted'] as const;
/** The public description's `IntegrationScope` values. */
export const SCOPES = INTEGRATION_SCOPES;
/** Quire extension events an integration may ask for (`x-quire-extension`); the public events need no asking. */
export const EXTENSION_EVENTS = ['audit_event'] as const;
export const CATEGORIES = ['analytics', 'collaboration', 'content', 'marketing', 'visitor-auth', 'other'] as const;

/** `POST /v1/integrations/{name}`: the body `@gitbook/cli` sends (section 4.17, public `PublishIntegration`). */
export class PublishIntegrationDto {
  // Optional members first: a body with several problems lists them in this order (at most 5).
  @ApiPropertyOptional({ enum: RUNTIMES, default: 'v1' })
  @Optional()
  @IsIn(RUNTIMES, { message: 'runtime: must be one of v1, v2' })
  runtime?: (typeof RUNTIMES)[number];

  @ApiPropertyOptional({ description: 'Base64 content of the icon (PNG, JPEG, GIF, WebP or SVG)' })
  @Optional()
  @IsBase64({}, { message: 'icon: must be base64' })
  icon?: string;

  @ApiPropertyOptional({ maxLength: 2048 })
  @Optional()
  @IsString()
  @MaxLength(2048)
  summary?: string;

  @ApiPropertyOptional({ type: [String], maxItems: 3 })
  @Optional()
  @IsArray()
  @ArrayMaxSize(3)
  @IsBase64({}, { each: true, message: 'previewImages: each must be base64' })
  previewImages?: string[];

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @Optional()
  @IsIn(VISIBILITIES)
  visibility?: (typeof VISIBILITIES)[number];

  @ApiPropertyOptional({ enum: TARGETS })
  @Optional()
  @IsIn(TARGETS)
  target?: (typeof TARGETS)[number];

  @ApiPropertyOptional({ type: [String], enum: CATEGORIES })
  @Optional()
  @IsArray()
  @ArrayMaxSize(CATEGORIES.length)
  @IsIn(CATEGORIES, { each: true, message: 'categories: each must be one of the integration categories' })
  categories?: string[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @Optional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  blocks?: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' } })
  @Optional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  contentSources?: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, maxItems: 5 })
  @Optional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsObject({ each: true })
  externalLinks?: { url: string; label: string }[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: '{ account, space, site }: JSON schemas of the configurations' })
  @Optional()
  @IsObject()
  configurations?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 })
  @Optional()
  @IsObject()
  secrets?: Record<string, string>;

  @ApiPropertyOptional({
    type: [String],
    enum: EXTENSION_EVENTS,
    description:
      'Quire extension: the extension events the integration asks for. `audit_event` delivers the organization’s audit log to each installation, in batches (schema `AuditEventIntegrationEvent`)',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(EXTENSION_EVENTS.length)
  @IsIn(EXTENSION_EVENTS, { each: true, message: 'events: each must be one of audit_event' })
  events?: string[];

  @ApiPropertyOptional({ description: 'Policy applied to script content: a string or a map of directives' })
  @Optional()
  contentSecurityPolicy?: string | Record<string, string>;

  @ApiProperty({ minLength: 2, maxLength: 30 })
  @IsString()
  @Length(2, 30)
  title: string;

  @ApiProperty({ maxLength: 100 })
  @IsString()
  @MaxLength(100)
  description: string;

  @ApiProperty({ type: [String], enum: SCOPES })
  @IsArray()
  @ArrayMaxSize(SCOPES.length)
  @IsIn(SCOPES, { each: true, message: 'scopes: each must be one of the integration scopes' })
  scopes: string[];

  @ApiProperty({ description: `The built script, one ES module (at most ${SCRIPT_MAX_BYTES} bytes)` })
  @IsString()
  @MaxLength(SCRIPT_MAX_BYTES)
  script: string;

  @ApiProperty({ description: 'ID of the organization that publishes it' })
  @IsString()
  @Length(1, 100)
  organization: string;
}
