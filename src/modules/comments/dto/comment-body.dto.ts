import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsString, Length, MinLength, ValidateNested } from 'class-validator';
import { Optional } from '../../../common/validation/presence';
import { MaxCodePoints } from '../../space-model/dto/max-code-points';

/** Longest comment or reply body, in characters (the description gives none; see docs/modules/comments.md). */
export const MAX_COMMENT_MARKDOWN = 100_000;
/** Longest emoji of a reaction, in code points (as the space's emoji: section 8). */
export const MAX_REACTION_EMOJI = 50;
/** Most reactions added or removed in one request. */
export const MAX_REACTIONS_PER_REQUEST = 50;

/** The body of a comment or reply: section 2.4 accepts the markdown form only. */
export class CommentBodyDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_COMMENT_MARKDOWN })
  @IsString()
  @Length(1, MAX_COMMENT_MARKDOWN)
  markdown: string;
}

const trimmedEmojis = ({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item.trim() : item)) : value);

function Reactions(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ type: [String], maxItems: MAX_REACTIONS_PER_REQUEST, description: 'Emoji (the character, or its code point in hex)' })(target, key);
    Optional()(target, key);
    Transform(trimmedEmojis)(target, key);
    IsArray()(target, key);
    ArrayMaxSize(MAX_REACTIONS_PER_REQUEST)(target, key);
    IsString({ each: true })(target, key);
    MinLength(1, { each: true, message: `${String(key)}: each emoji must be 1 to ${MAX_REACTION_EMOJI} characters` })(target, key);
    MaxCodePoints(MAX_REACTION_EMOJI, { each: true, message: `${String(key)}: each emoji must be 1 to ${MAX_REACTION_EMOJI} characters` })(target, key);
  };
}

/** `PostCommentSchema`. */
export class PostCommentDto {
  @ApiPropertyOptional({ description: 'A node (heading anchor) of `page` in the target revision' })
  @Optional()
  @IsString()
  @Length(1, 512)
  node?: string;

  @ApiPropertyOptional({ description: 'A page of the target revision' })
  @Optional()
  @IsString()
  @Length(1, 512)
  page?: string;

  @ApiProperty({ type: CommentBodyDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CommentBodyDto)
  body: CommentBodyDto;
}

/** `PostCommentReplySchema`. */
export class PostCommentReplyDto {
  @ApiProperty({ type: CommentBodyDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CommentBodyDto)
  body: CommentBodyDto;
}

/** `UpdateCommentReplySchema`: every field optional. */
export class UpdateCommentReplyDto {
  @ApiPropertyOptional({ type: CommentBodyDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => CommentBodyDto)
  body?: CommentBodyDto;

  @Reactions()
  addedReactions?: string[];

  @Reactions()
  removedReactions?: string[];
}

/** `UpdateCommentSchema`: a reply's fields, plus `resolved`. */
export class UpdateCommentDto extends UpdateCommentReplyDto {
  @ApiPropertyOptional({ description: 'true resolves the comment, false opens it again' })
  @Optional()
  @IsBoolean()
  resolved?: boolean;
}
