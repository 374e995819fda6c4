import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Matches, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../../common/pagination/list-query.dto';
import { Optional } from '../../../../common/validation/presence';
import { QueryBoolean } from '../../../content/dto/query-booleans';

/**
 * The public `SiteRedirectSourcePath`: a path starting with `/`, of unreserved characters (or
 * percent escapes), optionally ending in `*` or `/*` (a wildcard: every path that starts with what
 * precedes it); no `*` elsewhere, at most 512 characters.
 */
export const SOURCE_PATTERN = /^\/(?:[\w\-.~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[\w\-.~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;
export const SOURCE_MAX = 512;
const SOURCE_MESSAGE = 'must be a path starting with "/", of letters, digits, "-._~+" or %XX escapes, optionally ending in "*" or "/*"';

export const REDIRECT_ORDERS = ['createdAt', 'updatedAt', 'source'] as const;
export type RedirectOrder = (typeof REDIRECT_ORDERS)[number];

export class CreateSiteRedirectDto {
  @ApiProperty({ maxLength: SOURCE_MAX, pattern: SOURCE_PATTERN.source })
  @IsString()
  @MaxLength(SOURCE_MAX)
  @Matches(SOURCE_PATTERN, { message: SOURCE_MESSAGE })
  source: string;

  @ApiPropertyOptional({ default: false, description: 'Capture and append the wildcard-matched suffix to the destination URL.' })
  @Optional()
  @IsBoolean()
  captureWildcard?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Whether the redirect is draft and not live.' })
  @Optional()
  @IsBoolean()
  draft?: boolean;

  @ApiPropertyOptional({ default: false, description: 'Whether the redirect is permanent for public live traffic (308; 307 otherwise).' })
  @Optional()
  @IsBoolean()
  permanent?: boolean;

  @ApiProperty({ description: 'SiteRedirectInputDestination: site-section, site-space, site-page, path or external' })
  @IsObject()
  destination: Record<string, unknown>;
}

export class UpdateSiteRedirectDto {
  @ApiPropertyOptional({ maxLength: SOURCE_MAX, pattern: SOURCE_PATTERN.source })
  @Optional()
  @IsString()
  @MaxLength(SOURCE_MAX)
  @Matches(SOURCE_PATTERN, { message: SOURCE_MESSAGE })
  source?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  captureWildcard?: boolean;

  @ApiPropertyOptional({ description: 'false promotes a draft redirect to live' })
  @Optional()
  @IsBoolean()
  draft?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  permanent?: boolean;

  @ApiPropertyOptional({ description: 'SiteRedirectDestination' })
  @Optional()
  @IsObject()
  destination?: Record<string, unknown>;
}

export class BulkUpsertSiteRedirectsDto {
  @ApiProperty({ type: 'array', items: { type: 'object' }, minItems: 1, maxItems: 500 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsObject({ each: true })
  redirects: Record<string, unknown>[];
}

export class ListSiteRedirectsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only the redirects whose source contains this text', maxLength: SOURCE_MAX })
  @Optional()
  @IsString()
  @MaxLength(SOURCE_MAX)
  search?: string;

  @ApiPropertyOptional({ default: false, description: 'Draft (true) or live (false) redirects' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  draft?: boolean;

  @ApiPropertyOptional({ enum: REDIRECT_ORDERS, default: 'createdAt' })
  @Optional()
  @IsIn(REDIRECT_ORDERS)
  orderBy?: RedirectOrder;
}

export class SiteRedirectBySourceQueryDto {
  @ApiProperty({ maxLength: SOURCE_MAX, description: 'The source path to look up' })
  @IsString()
  @MaxLength(SOURCE_MAX)
  @Matches(SOURCE_PATTERN, { message: SOURCE_MESSAGE })
  source: string;

  @ApiPropertyOptional({ maxLength: 256, description: 'Key of a share link of the site' })
  @Optional()
  @Matches(/^[\w-]{1,256}$/, { message: 'must be 1 to 256 letters, digits, _ or -' })
  shareKey?: string;
}
