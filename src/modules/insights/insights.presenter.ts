import type { AggregateColumn, VisitorSegmentRow } from './insights.read-model';

/** `SiteInsightsQueryEventsAggregationResult`: one entry per answer column, its values row by row. */
export interface AggregateResultJson {
  columns: AggregateColumn[];
}

/** `SiteInsightsVisitorSegment`. */
export interface VisitorSegmentJson {
  title: string;
  claims: Record<string, unknown>;
  events: number;
  visitors: number;
  sessions: number;
}

export function presentAggregate(columns: AggregateColumn[]): AggregateResultJson {
  return { columns: columns.map(({ column, claim, values }) => (claim === undefined ? { column, values } : { column, claim, values })) };
}

export function presentVisitorSegment(row: VisitorSegmentRow): VisitorSegmentJson {
  return { title: segmentTitle(row.claims), claims: row.claims, events: row.events, visitors: row.visitors, sessions: row.sessions };
}

/** `plan: pro, role: admin`: the claims in key order, objects and lists as JSON. */
export function segmentTitle(claims: Record<string, unknown>): string {
  return Object.keys(claims)
    .sort()
    .map((key) => `${key}: ${typeof claims[key] === 'string' ? (claims[key] as string) : JSON.stringify(claims[key])}`)
    .join(', ');
}
