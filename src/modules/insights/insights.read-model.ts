/** One event as stored: a row of `insights_events` (section 4.19's event, flattened). */
export interface InsightEventRow {
  occurredAt: Date;
  type: string;
  visitorId: string;
  sessionId: string;
  url: string;
  urlPath: string;
  displayContext: string;
  siteSection: string | null;
  siteSpace: string | null;
  siteShareKey: string | null;
  spaceId: string | null;
  revisionId: string | null;
  pageId: string | null;
  referrer: string | null;
  referrerDomain: string | null;
  language: string | null;
  userAgent: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  /** The visitor's claims (adaptive content); null when they sent none. */
  visitorClaims: Record<string, unknown> | null;
  /** The event's type-specific members (a search query, a feedback rating...); null when none. */
  data: Record<string, unknown> | null;
}

/** One answer column of an aggregate: the public `SiteInsightsQueryEventsValues`. */
export interface AggregateColumn {
  column: string;
  claim?: string;
  values: unknown[];
}

/** A visitor segment: the events of visitors who carried the same claims. */
export interface VisitorSegmentRow {
  /** MD5 of the claims' canonical JSON text (jsonb's key order): the segment's identity and sort key. */
  key: string;
  claims: Record<string, unknown>;
  events: number;
  visitors: number;
  sessions: number;
}
