import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/** The most events one ingest request may carry (the input gate's array limit is the same by default). */
export const MAX_EVENTS_PER_BATCH = 1000;

/** `POST …/insights/events`: `{ events }` (the OpenAPI document's body). */
export class TrackEventsDto {
  @ApiProperty({ type: 'array', items: { $ref: '#/components/schemas/SiteInsightsEvent' }, maxItems: MAX_EVENTS_PER_BATCH })
  events: unknown[];
}

/** What the route receives once `TrackEventsPipe` has checked the envelope. */
export interface TrackEventsBody {
  events: unknown[];
}

/**
 * Checks the ingest body's envelope with the global pipe's messages, instead of class-validator: the
 * global pipe's class-transformer pass copied every event of a 1,000-event batch (≈30 ms a batch, the
 * largest cost of ingestion in a CPU profile). The route declares its body as an interface, which the
 * global pipe passes through untouched; each event is then checked by `parseEvents`
 * (insights-event.parser.ts), which knows the public `SiteInsightsEvent` shape and names the event.
 */
@Injectable()
export class TrackEventsPipe implements PipeTransform<unknown, TrackEventsBody> {
  transform(value: unknown, _metadata: ArgumentMetadata): TrackEventsBody {
    if (value === undefined) throw new BadRequestException('body is required');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BadRequestException('body: must be a JSON object');
    const unknown = Object.keys(value).filter((key) => key !== 'events');
    if (unknown.length > 0) throw new BadRequestException(`property ${unknown[0]} should not exist`);
    const events = (value as { events?: unknown }).events;
    if (events === undefined) throw new BadRequestException('events: is required');
    if (events === null) throw new BadRequestException('events: must not be null');
    if (!Array.isArray(events)) throw new BadRequestException('events: must be an array');
    if (events.length > MAX_EVENTS_PER_BATCH) throw new BadRequestException(`events: must contain no more than ${MAX_EVENTS_PER_BATCH} elements`);
    return { events };
  }
}
