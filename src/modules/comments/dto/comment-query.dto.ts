import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, Length } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';

export const COMMENT_FORMATS = ['markdown', 'document'] as const;
export type CommentFormat = (typeof COMMENT_FORMATS)[number];

/** `format`: the body as `{ markdown }` (default) or as the public JSON document (`{ document }`). */
export class CommentFormatQueryDto {
  @ApiPropertyOptional({ enum: COMMENT_FORMATS, default: 'markdown' })
  @Optional()
  @IsIn(COMMENT_FORMATS)
  format: CommentFormat = 'markdown';
}

/** A list of replies: `page`, `limit`, `format`. */
export class ListRepliesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: COMMENT_FORMATS, default: 'markdown' })
  @Optional()
  @IsIn(COMMENT_FORMATS)
  format: CommentFormat = 'markdown';
}

const STATUS_FILTERS = ['all', 'open', 'resolved'] as const;
const ORDERS = ['asc', 'desc'] as const;
/** Most user ids in `authors`. */
export const MAX_AUTHORS = 100;

/** `authors=a&authors=b` and `authors=a` both become an array. */
const toArray = ({ value }: { value: unknown }) => (value === undefined || Array.isArray(value) ? value : [value]);

export class ListCommentsQueryDto extends ListRepliesQueryDto {
  @ApiPropertyOptional({ enum: ORDERS, default: 'desc', description: 'By posting time' })
  @Optional()
  @IsIn(ORDERS)
  order: (typeof ORDERS)[number] = 'desc';

  @ApiPropertyOptional({ enum: STATUS_FILTERS, default: 'all' })
  @Optional()
  @IsIn(STATUS_FILTERS)
  status: (typeof STATUS_FILTERS)[number] = 'all';

  @ApiPropertyOptional({ description: 'Only comments on this page' })
  @Optional()
  @IsString()
  @Length(1, 512)
  targetPage?: string;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_AUTHORS, description: 'Only comments posted by these users' })
  @Optional()
  @Transform(toArray)
  @IsArray()
  @ArrayMaxSize(MAX_AUTHORS)
  @IsString({ each: true })
  @Length(1, 512, { each: true })
  authors?: string[];
}
