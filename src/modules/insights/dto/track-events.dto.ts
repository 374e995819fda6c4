import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray } from 'class-validator';

/** The most events one ingest request may carry (the input gate's array limit is the same by default). */
export const MAX_EVENTS_PER_BATCH = 1000;

/**
 * `POST …/insights/events`: `{ events }`. Each event is checked by `parseEvents` (insights-event.parser.ts),
 * which knows the public `SiteInsightsEvent` shape and names the event it refuses; class-validator only
 * sees the array, so a batch of 1,000 is not turned into 1,000 class instances first.
 */
export class TrackEventsDto {
  @ApiProperty({ type: 'array', items: { $ref: '#/components/schemas/SiteInsightsEvent' }, maxItems: MAX_EVENTS_PER_BATCH })
  @IsArray()
  @ArrayMaxSize(MAX_EVENTS_PER_BATCH)
  events: unknown[];
}
