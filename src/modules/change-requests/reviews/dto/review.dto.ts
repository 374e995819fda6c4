import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString, Max, MaxLength, Min } from 'class-validator';
import { ListQueryDto } from '../../../../common/pagination/list-query.dto';
import { Optional } from '../../../../common/validation/presence';
import { QueryBoolean } from '../../../content/dto/query-booleans';
import { MAX_SUBJECT } from '../../dto/change-request.dto';
import { REVIEW_STATUSES, type ReviewStatus } from '../review.entity';

export const MAX_REVIEWERS_PER_REQUEST = 50;
export const MAX_REVIEW_COMMENT = 100_000;
export const MAX_REQUIRED_APPROVALS = 20;

export class ListReviewsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only outdated reviews (true) or only current ones (false)' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  outdated?: boolean;

  @ApiPropertyOptional({ enum: ['markdown', 'document'], description: "The body of each review's comment: `{ markdown }` (default) or the JSON document" })
  @Optional()
  @IsIn(['markdown', 'document'])
  format?: 'markdown' | 'document';
}

export class ReviewQueryDto {
  @ApiPropertyOptional({ enum: ['markdown', 'document'], description: "The body of each review's comment: `{ markdown }` (default) or the JSON document" })
  @Optional()
  @IsIn(['markdown', 'document'])
  format?: 'markdown' | 'document';
}

export class SubmitReviewDto {
  @ApiProperty({ enum: REVIEW_STATUSES })
  @IsIn(REVIEW_STATUSES)
  status: ReviewStatus;

  @ApiPropertyOptional({
    description:
      "`{ markdown }`: posted as a comment of the change request (its `target.review` names the review) and shown as the review's `comment` (JSON documents: 400)",
  })
  @Optional()
  @IsObject()
  comment?: Record<string, unknown>;
}

export class RequestReviewersDto {
  @ApiProperty({
    type: [String],
    maxItems: MAX_REVIEWERS_PER_REQUEST,
    description: 'User IDs, each a member or guest who can view the space (at least one user or team)',
  })
  @IsArray()
  @ArrayMaxSize(MAX_REVIEWERS_PER_REQUEST)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  users: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_REVIEWERS_PER_REQUEST,
    description: 'Quire extension: team IDs of the organization, listed as `kind: team` until a member of the team reviews (the public body names users only)',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_REVIEWERS_PER_REQUEST)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  teams?: string[];

  @ApiPropertyOptional({ maxLength: MAX_SUBJECT, description: 'Sets the change request subject too' })
  @Optional()
  @IsString()
  @MaxLength(MAX_SUBJECT)
  subject?: string;

  @ApiPropertyOptional({ description: 'Not supported (change requests have no description yet): 400' })
  @Optional()
  description?: unknown;
}

export class ContributorsQueryDto extends ListQueryDto {}

export class MergeRulesDto {
  @ApiProperty({
    minimum: 0,
    maximum: MAX_REQUIRED_APPROVALS,
    description: "Approvals of the change request's current revision a merge needs, besides the public `mergeRules` (0: none)",
  })
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_REQUIRED_APPROVALS)
  requiredApprovals: number;
}
