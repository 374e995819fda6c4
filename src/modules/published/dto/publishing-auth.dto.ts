import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUrl, MaxLength } from 'class-validator';
import { VISITOR_AUTH_BACKENDS, type VisitorAuthBackend } from '../site-publishing-auth.entity';
import { Nullable, Optional } from '../../../common/validation/presence';

const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** `SitePublishingAuthUpdate`: the backend, and the fallback and logout URLs (`null` unsets one; absent leaves it). */
export class UpdatePublishingAuthDto {
  @ApiPropertyOptional({ enum: VISITOR_AUTH_BACKENDS })
  @Optional()
  @IsIn(VISITOR_AUTH_BACKENDS)
  backend?: VisitorAuthBackend;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  @Nullable()
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  fallbackURL?: string | null;

  @ApiPropertyOptional({ type: String, format: 'uri', nullable: true })
  @Nullable()
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  logoutURL?: string | null;
}
