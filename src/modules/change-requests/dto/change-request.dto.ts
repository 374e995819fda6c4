import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsObject, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';
import { QueryBoolean } from '../../content/dto/query-booleans';
import { MAX_CHANGES } from '../authoring/content-changes';

export const MAX_SUBJECT = 100;
const MAX_AGENT_TASK_ID = 255;
export const PATCHABLE_STATUSES = ['draft', 'open', 'archived'] as const;

export class CreateChangeRequestDto {
  @ApiPropertyOptional({ maxLength: MAX_SUBJECT, description: 'Subject of the change request' })
  @Optional()
  @IsString()
  @MaxLength(MAX_SUBJECT)
  subject?: string;

  @ApiPropertyOptional({ maxLength: MAX_AGENT_TASK_ID, description: 'ID of the agent task the change request implements (stored, not shown)' })
  @Optional()
  @IsString()
  @MaxLength(MAX_AGENT_TASK_ID)
  agentTaskId?: string;
}

export class UpdateChangeRequestDto {
  @ApiPropertyOptional({ maxLength: MAX_SUBJECT })
  @Optional()
  @IsString()
  @MaxLength(MAX_SUBJECT)
  subject?: string;

  @ApiPropertyOptional({ enum: PATCHABLE_STATUSES, description: '`merged` is reached only by merging' })
  @Optional()
  @IsIn(PATCHABLE_STATUSES)
  status?: (typeof PATCHABLE_STATUSES)[number];
}

export class UpdateChangeRequestContentDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: MAX_CHANGES,
    items: { $ref: '#/components/schemas/ChangeRequestContentChange' },
    description: 'Applied in order into one new revision; any invalid change refuses the whole batch (400 naming its index)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CHANGES)
  @IsObject({ each: true })
  changes: Record<string, unknown>[];
}

export class ContentUpdateQueryDto {
  @ApiPropertyOptional({ default: true, description: 'false answers the change request with the affected pages and inserted files' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  compat: boolean = true;
}

export class PdfQueryDto {
  @ApiPropertyOptional({ description: 'Only the page given by `page`' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  only: boolean = false;

  @ApiPropertyOptional({ description: 'ID of the page (with `only=true`)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  page?: string;
}

export class PdfDownloadQueryDto extends PdfQueryDto {
  @ApiProperty({ description: 'The change request revision the PDF shows (pinned when the URL was given)' })
  @IsString()
  @MaxLength(64)
  revision: string;
}
