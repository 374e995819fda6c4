import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { QueryBoolean } from './query-booleans';

/** `metadata` and `computed`, accepted by every read of a revision. */
export class RevisionQueryDto {
  @ApiPropertyOptional({ default: true, description: 'false leaves out mutable git metadata' })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  metadata: boolean = true;

  @ApiPropertyOptional({ default: true, description: 'false skips computed content (Quire has none yet: accepted for compatibility)' })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  computed: boolean = true;
}

export class RevisionFilesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  metadata: boolean = true;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  computed: boolean = true;
}

const EVALUATED = [true, false, 'deterministic-only'] as const;
const DEREFERENCED = [true, false, 'reusable-contents'] as const;

export class PageQueryDto extends RevisionQueryDto {
  @ApiPropertyOptional({ enum: ['markdown', 'document'], default: 'markdown', description: 'Body as markdown or as the JSON document tree' })
  @IsOptional()
  @IsIn(['markdown', 'document'])
  format: 'markdown' | 'document' = 'markdown';

  @ApiPropertyOptional({ name: 'format.markdown.refs', enum: ['relative', 'stable'], default: 'relative' })
  @IsOptional()
  @IsIn(['relative', 'stable'])
  'format.markdown.refs': 'relative' | 'stable' = 'relative';

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['deterministic-only'] }], default: false })
  @IsOptional()
  @QueryBoolean()
  @IsIn(EVALUATED)
  evaluated: (typeof EVALUATED)[number] = false;

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['reusable-contents'] }], default: false })
  @IsOptional()
  @QueryBoolean()
  @IsIn(DEREFERENCED)
  dereferenced: (typeof DEREFERENCED)[number] = false;
}
