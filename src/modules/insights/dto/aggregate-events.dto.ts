import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsInt, IsObject, Max, Min } from 'class-validator';
import { Optional } from '../../../common/validation/presence';
import { MAX_QUERY_COLUMNS } from '../insights-query.compiler';

export const AGGREGATE_LIMIT = { min: 1, max: 1000, default: 1000 };

/**
 * `POST …/insights/events/aggregate` (the public `SiteInsightsQueryEventsAggregation`). The DTO checks
 * presence, arrays and the limit; the columns, intervals, operators and values are checked against the
 * whitelist by `compileAggregate`, which names what it refuses.
 */
export class AggregateEventsDto {
  @ApiPropertyOptional({ type: 'array', items: { $ref: '#/components/schemas/SiteInsightsQueryEventsColumn' }, maxItems: MAX_QUERY_COLUMNS })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_QUERY_COLUMNS)
  select?: unknown[];

  @ApiPropertyOptional({ type: 'array', items: { $ref: '#/components/schemas/SiteInsightsQueryEventsFilter' }, maxItems: MAX_QUERY_COLUMNS })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_QUERY_COLUMNS)
  where?: unknown[];

  @ApiPropertyOptional({ type: 'array', items: { $ref: '#/components/schemas/SiteInsightsQueryEventsColumn' }, maxItems: MAX_QUERY_COLUMNS })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_QUERY_COLUMNS)
  groupBy?: unknown[];

  @ApiPropertyOptional({
    type: 'object',
    properties: { by: { allOf: [{ $ref: '#/components/schemas/SiteInsightsQueryEventsColumn' }] }, direction: { type: 'string', enum: ['asc', 'desc'] } },
    required: ['by', 'direction'],
  })
  @Optional()
  @IsObject()
  order?: Record<string, unknown>;

  @ApiProperty({ allOf: [{ $ref: '#/components/schemas/SiteInsightsQueryRange' }] })
  @IsDefined({ message: 'range is required' })
  range: unknown;

  @ApiPropertyOptional({ minimum: AGGREGATE_LIMIT.min, maximum: AGGREGATE_LIMIT.max, default: AGGREGATE_LIMIT.default })
  @Optional()
  @IsInt()
  @Min(AGGREGATE_LIMIT.min)
  @Max(AGGREGATE_LIMIT.max)
  limit: number = AGGREGATE_LIMIT.default;
}
