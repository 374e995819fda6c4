import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUrl, MaxLength, ValidateIf } from 'class-validator';
import { VISITOR_AUTH_BACKENDS, type VisitorAuthBackend } from '../site-publishing-auth.entity';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** `SitePublishingAuthUpdate`: the backend, and the fallback and logout URLs (`null` unsets one; absent leaves it). */
export class UpdatePublishingAuthDto {
  @ApiPropertyOptional({ enum: VISITOR_AUTH_BACKENDS })
  @IsOptional()
  @IsIn(VISITOR_AUTH_BACKENDS)
  backend?: VisitorAuthBackend;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  fallbackURL?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  logoutURL?: string | null;
}
