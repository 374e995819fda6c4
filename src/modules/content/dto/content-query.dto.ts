import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { QueryBoolean } from './query-booleans';
import { Optional } from '../../../common/validation/presence';

/** `metadata` and `computed`, accepted by every read of a revision. */
export class RevisionQueryDto {
  @ApiPropertyOptional({ default: true, description: 'false leaves out mutable git metadata' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  metadata: boolean = true;

  @ApiPropertyOptional({ default: true, description: 'false leaves out the generated body of computed pages (OpenAPI reference pages)' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  computed: boolean = true;
}

export class RevisionFilesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ default: true })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  metadata: boolean = true;

  @ApiPropertyOptional({ default: true })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  computed: boolean = true;
}

const EVALUATED = [true, false, 'deterministic-only'] as const;
const DEREFERENCED = [true, false, 'reusable-contents'] as const;

export class PageQueryDto extends RevisionQueryDto {
  @ApiPropertyOptional({ enum: ['markdown', 'document'], default: 'markdown', description: 'Body as markdown or as the JSON document tree' })
  @Optional()
  @IsIn(['markdown', 'document'])
  format: 'markdown' | 'document' = 'markdown';

  @ApiPropertyOptional({ name: 'format.markdown.refs', enum: ['relative', 'stable'], default: 'relative' })
  @Optional()
  @IsIn(['relative', 'stable'])
  'format.markdown.refs': 'relative' | 'stable' = 'relative';

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['deterministic-only'] }], default: false })
  @Optional()
  @QueryBoolean()
  @IsIn(EVALUATED)
  evaluated: (typeof EVALUATED)[number] = false;

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['reusable-contents'] }], default: false })
  @Optional()
  @QueryBoolean()
  @IsIn(DEREFERENCED)
  dereferenced: (typeof DEREFERENCED)[number] = false;
}

/** `evaluated` and `dereferenced` of a document read: accepted; bodies hold no expressions or references to expand yet. */
export class DocumentQueryDto {
  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['deterministic-only'] }], default: false })
  @Optional()
  @QueryBoolean()
  @IsIn(EVALUATED)
  evaluated: (typeof EVALUATED)[number] = false;

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['reusable-contents'] }], default: false })
  @Optional()
  @QueryBoolean()
  @IsIn(DEREFERENCED)
  dereferenced: (typeof DEREFERENCED)[number] = false;
}

/** `getDocumentById`: `schema` names the document schema version; Quire has one, answered for both. */
export class DocumentByIdQueryDto {
  @ApiPropertyOptional({ enum: ['current', 'next'], description: 'Version of the schema used for the document (one version here: both answer it)' })
  @Optional()
  @IsIn(['current', 'next'])
  schema?: 'current' | 'next';
}
