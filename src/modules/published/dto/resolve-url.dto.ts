import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsString, IsUrl, MaxLength, ValidateNested } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

export const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const toBool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** The public `SiteVisitorPayload`. */
export class SiteVisitorDto {
  @ApiPropertyOptional({ enum: ['human', 'agent'] })
  @Optional()
  @IsIn(['human', 'agent'])
  type?: 'human' | 'agent';

  @ApiPropertyOptional({ description: 'JWT generated for an authenticated access session' })
  @Optional()
  @IsString()
  @MaxLength(8192)
  jwtToken?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsObject()
  unsignedClaims?: Record<string, unknown>;
}

/** Body of `resolvePublishedContentByUrl`. */
export class ResolveUrlDto {
  @ApiProperty({ format: 'uri', maxLength: 2048 })
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ default: false })
  @Optional()
  @IsBoolean()
  redirectOnError?: boolean;

  @ApiPropertyOptional({ type: SiteVisitorDto })
  @Optional()
  @ValidateNested()
  @Type(() => SiteVisitorDto)
  visitor?: SiteVisitorDto;
}

/** Query of the deprecated `getPublishedContentByUrl`. */
export class ResolveUrlQueryDto {
  @ApiProperty({ format: 'uri', maxLength: 2048 })
  @IsUrl(URL_OPTIONS)
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(8192)
  visitorAuthToken?: string;

  @ApiPropertyOptional({ default: false })
  @Optional()
  @Transform(toBool)
  @IsBoolean()
  redirectOnError?: boolean;
}
