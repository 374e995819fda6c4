import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Nullable, Optional, OptionalBody } from '../../../common/validation/presence';
import { IsEntityId } from '../../access/dto/entity-id';
import { QueryBoolean } from '../../content/dto/query-booleans';
import { SITE_AGENTS_CONTEXTS, SITE_VISIBILITIES, type SiteAgentsContext, type SiteVisibility } from '../site.entity';

/** The public schemas' limits (SiteTitle, SiteHostname, SiteBasename, SiteProxyOrigin). */
export const SITE_TITLE = { min: 2, max: 128 };
// `[.]` as published in the OpenAPI document (the same as `\.`).
// eslint-disable-next-line regexp/no-useless-character-class
export const HOSTNAME_PATTERN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
export const PROXY_PATTERN = /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/;
export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;

export class ListSitesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only the sites that show this space' })
  @Optional()
  @IsEntityId()
  space?: string;

  @ApiPropertyOptional({ description: 'Only the sites whose title contains this text (case-insensitive)', maxLength: SITE_TITLE.max })
  @Optional()
  @IsString()
  @MaxLength(SITE_TITLE.max)
  title?: string;

  @ApiPropertyOptional({ description: 'Only published (true) or unpublished (false) sites' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  published?: boolean;
}

/** The public description does not require this operation's body. */
@OptionalBody()
export class CreateSiteDto {
  @ApiPropertyOptional({ enum: SITE_TYPES, default: 'basic' })
  @Optional()
  @IsIn(SITE_TYPES)
  type?: string;

  @ApiPropertyOptional({ minLength: SITE_TITLE.min, maxLength: SITE_TITLE.max, default: 'Untitled site' })
  @Optional()
  @IsString()
  @Length(SITE_TITLE.min, SITE_TITLE.max)
  title?: string;

  @ApiPropertyOptional({ enum: SITE_VISIBILITIES, default: 'public' })
  @Optional()
  @IsIn(SITE_VISIBILITIES)
  visibility?: SiteVisibility;

  @ApiPropertyOptional({ type: [String], description: 'IDs of spaces to add to the site, in order' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsEntityId({ each: true })
  spaces?: string[];

  @ApiPropertyOptional({ description: 'Also create a new space (titled like the site) and add it to the site' })
  @Optional()
  @IsBoolean()
  createSpace?: boolean;
}

export class AdaptiveContentDto {
  @ApiProperty()
  @IsBoolean()
  enabled: boolean;
}

export class UpdateSiteDto {
  @ApiPropertyOptional({ minLength: SITE_TITLE.min, maxLength: SITE_TITLE.max })
  @Optional()
  @IsString()
  @Length(SITE_TITLE.min, SITE_TITLE.max)
  title?: string;

  @ApiPropertyOptional({ enum: SITE_VISIBILITIES })
  @Optional()
  @IsIn(SITE_VISIBILITIES)
  visibility?: SiteVisibility;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  @Matches(/^[\w-]+$/, { message: 'must be letters, digits, _ or -' })
  basename?: string;

  @ApiPropertyOptional({ maxLength: 512, pattern: HOSTNAME_PATTERN.source, nullable: true, description: 'Custom hostname; null removes it' })
  @Nullable()
  @IsString()
  @MaxLength(512)
  @Matches(HOSTNAME_PATTERN, { message: 'must be a hostname such as docs.example.com' })
  hostname?: string | null;

  @ApiPropertyOptional({ type: AdaptiveContentDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => AdaptiveContentDto)
  adaptiveContent?: AdaptiveContentDto;

  @ApiPropertyOptional({ enum: SITE_AGENTS_CONTEXTS })
  @Optional()
  @IsIn(SITE_AGENTS_CONTEXTS)
  agentsContext?: SiteAgentsContext;

  @ApiPropertyOptional({ description: 'Site space to make the default (of the default section when the site has sections)' })
  @Optional()
  @IsEntityId()
  defaultSiteSpace?: string;

  @ApiPropertyOptional({ description: 'Section to make the default' })
  @Optional()
  @IsEntityId()
  defaultSiteSection?: string;

  @ApiPropertyOptional({ maxLength: 512, pattern: PROXY_PATTERN.source, nullable: true, description: 'e.g. example.com/docs; null removes the proxy' })
  @Nullable()
  @IsString()
  @MaxLength(512)
  @Matches(PROXY_PATTERN, { message: 'must be a host and a path, such as example.com/docs' })
  proxy?: string | null;
}

export class UpdateAdaptiveSchemaDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema draft-07 object of boolean claims' })
  @IsObject()
  jsonSchema: Record<string, unknown>;
}

export class ShareKeyQueryDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'Key of a share link, to resolve published URLs of a share-link site' })
  @Optional()
  @Matches(/^[\w-]{1,256}$/, { message: 'must be 1 to 256 letters, digits, _ or -' })
  shareKey?: string;
}

export class ListShareLinksQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: 50, description: 'Only the links whose name contains this text' })
  @Optional()
  @IsString()
  @MaxLength(50)
  search?: string;
}

export class CreateShareLinkDto {
  @ApiProperty({ maxLength: 50 })
  @IsString()
  @MaxLength(50)
  name: string;
}

export class UpdateShareLinkDto {
  @ApiPropertyOptional({ maxLength: 50 })
  @Optional()
  @IsString()
  @MaxLength(50)
  name?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  active?: boolean;
}
