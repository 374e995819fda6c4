import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
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

/** `evaluated` and `dereferenced`: how a document is evaluated for a read (`content/document/evaluate.ts`). */
export class DocumentQueryDto {
  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['deterministic-only'] }],
    default: false,
    description: "true: variables, and `if` blocks with the visitor's claims at hand; `deterministic-only`: what does not depend on the visitor",
  })
  @Optional()
  @QueryBoolean()
  @IsIn(EVALUATED)
  evaluated: (typeof EVALUATED)[number] = false;

  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['reusable-contents'] }],
    default: false,
    description: 'true or `reusable-contents`: reusable-content blocks replaced by their content',
  })
  @Optional()
  @QueryBoolean()
  @IsIn(DEREFERENCED)
  dereferenced: (typeof DEREFERENCED)[number] = false;
}

/** A page read: the revision's flags, the document's evaluation, and the body's format. */
export class PageQueryDto extends IntersectionType(RevisionQueryDto, DocumentQueryDto) {
  @ApiPropertyOptional({ enum: ['markdown', 'document'], default: 'markdown', description: 'Body as markdown or as the JSON document tree' })
  @Optional()
  @IsIn(['markdown', 'document'])
  format: 'markdown' | 'document' = 'markdown';

  @ApiPropertyOptional({ name: 'format.markdown.refs', enum: ['relative', 'stable'], default: 'relative' })
  @Optional()
  @IsIn(['relative', 'stable'])
  'format.markdown.refs': 'relative' | 'stable' = 'relative';
}

/** `getDocumentById`: `schema` names the document schema version; Quire has one, answered for both. */
export class DocumentByIdQueryDto {
  @ApiPropertyOptional({ enum: ['current', 'next'], description: 'Version of the schema used for the document (one version here: both answer it)' })
  @Optional()
  @IsIn(['current', 'next'])
  schema?: 'current' | 'next';
}
