import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsString, Length, Matches } from 'class-validator';
import { Optional } from '../../../../common/validation/presence';

const ID = /^[\w-]{1,64}$/;

/**
 * `searchSiteContent`'s body: `query` and either `scope` (the public `SiteSearchScope`) or the
 * deprecated `mode` (`all`; `current` with `siteSpaceId`; `specific` with `siteSpaceIds`). The
 * service checks the combinations.
 */
export class SiteSearchDto {
  @ApiProperty({ minLength: 1, maxLength: 512 })
  @IsString()
  @Length(1, 512)
  query: string;

  @ApiPropertyOptional({ description: 'SiteSearchScope: {mode: "default", currentSiteSpace?, restrictTo?} | {mode: "specific", siteSpaceIds} | {mode: "all"}' })
  @Optional()
  @IsObject()
  scope?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: ['specific', 'current', 'all'], deprecated: true })
  @Optional()
  @IsIn(['specific', 'current', 'all'])
  mode?: 'specific' | 'current' | 'all';

  @ApiPropertyOptional({ type: [String], deprecated: true })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @Matches(ID, { each: true, message: 'each value must be an id' })
  siteSpaceIds?: string[];

  @ApiPropertyOptional({ deprecated: true })
  @Optional()
  @Matches(ID, { message: 'must be an id' })
  siteSpaceId?: string;
}
