import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString, Matches, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';
import { TARGETS } from './publish-integration.dto';

const toBool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** The public description's filters of `listIntegrations` (its query parameter names). */
export class ListIntegrationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Filter by name or title (substring, case-insensitive)' })
  @Optional()
  @IsString()
  @MaxLength(100)
  search?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(100)
  category?: string;

  @ApiPropertyOptional({ description: 'Integrations with a block whose urlUnfurl names this domain', pattern: '^[a-zA-Z0-9-_.]+$' })
  @Optional()
  @Matches(/^[\w.-]+$/, { message: 'blockDomain: must match ^[a-zA-Z0-9-_.]+$' })
  @MaxLength(100)
  blockDomain?: string;

  @ApiPropertyOptional({ type: Boolean })
  @Optional()
  @Transform(toBool)
  @IsBoolean()
  blocks?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  @Optional()
  @Transform(toBool)
  @IsBoolean()
  contentSources?: boolean;

  @ApiPropertyOptional({ description: 'ID of the owning organization' })
  @Optional()
  @IsString()
  @MaxLength(100)
  owner?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(100)
  scope?: string;

  @ApiPropertyOptional({ enum: TARGETS })
  @Optional()
  @IsIn(TARGETS)
  target?: (typeof TARGETS)[number];
}
