import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Length, MaxLength } from 'class-validator';
import { INTEGRATION_SCOPES } from '../../../common/access/script-access';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';

/** `POST …/installations`: the organization to install on. */
export class InstallIntegrationDto {
  @ApiProperty()
  @IsString()
  @Length(1, 100)
  organization: string;
}

/** `POST …/installations/{id}/spaces`. */
export class InstallOnSpaceDto {
  @ApiProperty({ description: 'ID of the space to install the integration on' })
  @IsString()
  @Length(1, 100)
  space: string;
}

/** `POST …/installations/{id}/sites`. */
export class InstallOnSiteDto {
  @ApiProperty({ description: 'ID of the site to install the integration on' })
  @IsString()
  @Length(1, 100)
  siteId: string;
}

/** `PATCH` of a space or site installation. */
export class UpdateTargetInstallationDto {
  @ApiPropertyOptional({ type: [String], maxItems: 5 })
  @Optional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  externalIds?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsObject()
  configuration?: Record<string, unknown>;
}

/** `PATCH …/installations/{id}`. */
export class UpdateInstallationDto extends UpdateTargetInstallationDto {
  @ApiPropertyOptional({ enum: ['all', 'selected'] })
  @Optional()
  @IsIn(['all', 'selected'])
  space_selection?: 'all' | 'selected';

  @ApiPropertyOptional({ enum: ['all', 'selected'] })
  @Optional()
  @IsIn(['all', 'selected'])
  site_selection?: 'all' | 'selected';
}

/** `POST …/installations/{id}/scopes`: the scopes an admin grants (from the public `IntegrationScope` list). */
export class GrantScopesDto {
  @ApiProperty({ type: [String], enum: INTEGRATION_SCOPES, maxItems: INTEGRATION_SCOPES.length })
  @IsArray()
  @ArrayMaxSize(INTEGRATION_SCOPES.length)
  @IsIn(INTEGRATION_SCOPES, { each: true })
  scopes: string[];
}

const toBool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class ListInstallationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only installations carrying this external ID' })
  @Optional()
  @IsString()
  @MaxLength(255)
  externalId?: string;
}

export class ListTargetInstallationsQueryDto extends ListInstallationsQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Expand the space (or site) into its object' })
  @Optional()
  @Transform(toBool)
  @IsBoolean()
  extended?: boolean;
}

export class ExtendedQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: false })
  @Optional()
  @Transform(toBool)
  @IsBoolean()
  extended?: boolean;
}
