import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Optional } from '../validation/presence';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

/** `page` and `limit`, accepted by every paginated list; list DTOs extend it with their filters. */
export class ListQueryDto {
  @ApiPropertyOptional({ description: 'Identifier of the page of results to fetch (the `next.page` of the previous page)' })
  @Optional()
  @IsString()
  @MaxLength(2048)
  page?: string;

  @ApiPropertyOptional({ description: 'The number of results per page', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @Optional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;
}
