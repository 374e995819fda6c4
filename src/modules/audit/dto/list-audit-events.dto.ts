import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsISO8601, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

export const AUDIT_DEFAULT_PAGE_SIZE = 20;
/** The public description says 100; Quire accepts up to 1000 (a superset stays compatible). */
export const AUDIT_MAX_PAGE_SIZE = 1000;

/** `listOrganizationAuditEvents`: keyset page, filters combined with AND, and `format=ndjson` for the export. */
export class ListAuditEventsDto {
  @ApiPropertyOptional({ description: 'Identifier of the page results to fetch.' })
  @Optional()
  @IsString()
  @MaxLength(2048)
  page?: string;

  @ApiPropertyOptional({ description: 'Number of events to return, up to 1000.', minimum: 1, maximum: AUDIT_MAX_PAGE_SIZE, default: AUDIT_DEFAULT_PAGE_SIZE })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(AUDIT_MAX_PAGE_SIZE)
  limit: number = AUDIT_DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ description: 'Include events occurring at or after this time.', format: 'date-time', type: String })
  @Optional()
  @IsISO8601({ strict: true }, { message: 'from: must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ description: 'Include events occurring at or before this time.', format: 'date-time', type: String })
  @Optional()
  @IsISO8601({ strict: true }, { message: 'to: must be an ISO 8601 date-time' })
  to?: string;

  @ApiPropertyOptional({ description: 'Filter by an exact audit action name.' })
  @Optional()
  @IsString()
  @MaxLength(128)
  action?: string;

  @ApiPropertyOptional({ description: 'Filter by an exact stable actor identifier.' })
  @Optional()
  @IsString()
  @MaxLength(256)
  actor?: string;

  @ApiPropertyOptional({ description: 'Filter by an exact stable target identifier.' })
  @Optional()
  @IsString()
  @MaxLength(256)
  target?: string;

  @ApiPropertyOptional({
    description: 'Quire: `ndjson` streams every filtered event, one JSON object per line (application/x-ndjson), ignoring page and limit.',
    enum: ['json', 'ndjson'],
  })
  @Optional()
  @IsIn(['json', 'ndjson'])
  format?: 'json' | 'ndjson';
}
