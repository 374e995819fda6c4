/**
 * The whitelist of aggregate columns (the public `SiteInsightsQueryEventsColumn`): every SQL fragment
 * an aggregate query is built from is written here, keyed by the column's public name. A request
 * only ever picks entries of these tables; its values travel as bind parameters.
 */

/** Where a column's value can be read: raw events always; each rollup only for the columns it keeps. */
export type RollupLevel = 'totals' | 'pages';

/** How `where` values of a column are checked and bound. */
export type ValueKind = 'text' | 'int' | 'timestamp' | 'number' | 'page' | 'boolean';

export interface DimensionColumn {
  kind: 'dimension';
  valueKind: ValueKind;
  /** Expression over the raw events table `e`, or over the source row `s.t` when `fromTime` is set. */
  raw: string;
  /** Expression per rollup table `r` that keeps it (absent: raw events only). */
  rollup?: Partial<Record<RollupLevel, string>>;
  /** Derived from the event time in the outer query (datetime, dayOfWeek, hourOfDay), so every source has it. */
  fromTime?: boolean;
  /** Allowed `where` values for text columns with a closed set. */
  allowed?: readonly string[];
  /** Whether `null` is a value of the column (in `where` and in results). */
  nullable: boolean;
}

export interface MetricColumn {
  kind: 'metric';
  valueKind: 'number';
  /** Aggregate expression over the source rows `s` (`s.n` is 1 per raw event, or the rollup's count). */
  aggregate: string;
  /** Only `eventsCount` adds up across rollup rows; distinct counts need raw events. */
  rollupSafe: boolean;
}

export type ColumnSpec = DimensionColumn | MetricColumn;

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

export const EVENT_TYPES = [
  'page_view',
  'page_markdown_request',
  'search_open',
  'search_type_query',
  'search_open_result',
  'page_post_feedback',
  'page_post_feedback_comment',
  'agent_feedback',
  'ask_question',
  'ask_view',
  'ask_rate_response',
  'link_click',
  'api_client_open',
  'api_client_request',
  'ad_click',
  'ad_display',
  'trademark_click',
  'llms_request',
  'mcp_request',
  'rss_request',
] as const;

export const DISPLAY_CONTEXTS = ['site', 'server', 'embed', 'mcp'] as const;

export const OPERATORS = ['in', 'notIn', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'] as const;
export type Operator = (typeof OPERATORS)[number];

const dim = (spec: Omit<DimensionColumn, 'kind'>): DimensionColumn => ({ kind: 'dimension', ...spec });
const both = (column: string) => ({ totals: `r.${column}`, pages: `r.${column}` });
const pages = (expression: string) => ({ pages: expression });
const rawText = (expression: string) => dim({ valueKind: 'text', raw: `coalesce(${expression}, '')`, nullable: false });

/** Every column Quire answers, by its public name. */
export const COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  datetime: dim({ valueKind: 'timestamp', raw: 's.t', fromTime: true, nullable: false }),
  dayOfWeek: dim({ valueKind: 'int', raw: `extract(isodow FROM s.t AT TIME ZONE 'UTC')::int`, fromTime: true, nullable: false }),
  hourOfDay: dim({ valueKind: 'int', raw: `extract(hour FROM s.t AT TIME ZONE 'UTC')::int`, fromTime: true, nullable: false }),
  eventType: dim({ valueKind: 'text', raw: 'e.type', rollup: both('type'), allowed: EVENT_TYPES, nullable: false }),
  displayContext: dim({ valueKind: 'text', raw: 'e.display_context', rollup: both('display_context'), allowed: DISPLAY_CONTEXTS, nullable: false }),
  url: dim({ valueKind: 'text', raw: 'e.url', nullable: false }),
  urlPath: dim({ valueKind: 'text', raw: 'e.url_path', rollup: pages('r.url_path'), nullable: false }),
  siteSection: dim({ valueKind: 'text', raw: 'e.site_section', rollup: pages('r.site_section'), nullable: true }),
  siteSpace: dim({ valueKind: 'text', raw: 'e.site_space', rollup: pages('r.site_space'), nullable: true }),
  siteShareKey: dim({ valueKind: 'text', raw: 'e.site_share_key', rollup: pages('r.site_share_key'), nullable: true }),
  // Two source columns (space, page): see PAGE_PARTS.
  page: dim({ valueKind: 'page', raw: '', rollup: pages(''), nullable: true }),
  referrer: rawText('e.referrer'),
  referrerDomain: dim({ valueKind: 'text', raw: `coalesce(e.referrer_domain, '')`, rollup: pages(`coalesce(r.referrer_domain, '')`), nullable: false }),
  visitorLanguage: dim({ valueKind: 'text', raw: 'e.language', nullable: true }),
  utmSource: rawText('e.utm_source'),
  utmMedium: rawText('e.utm_medium'),
  utmCampaign: rawText('e.utm_campaign'),
  utmTerm: rawText('e.utm_term'),
  utmContent: rawText('e.utm_content'),
  eventSearchQuery: rawText(`e.data ->> 'query'`),
  visitorAuthenticated: dim({ valueKind: 'boolean', raw: '(e.visitor_claims IS NOT NULL)', nullable: false }),
  // The claim's name is a bind parameter, spliced in by the compiler where `$claim` stands.
  visitorClaim: dim({ valueKind: 'text', raw: `coalesce(e.visitor_claims ->> $claim, '')`, nullable: false }),
  eventsCount: { kind: 'metric', valueKind: 'number', aggregate: 'sum(s.n)', rollupSafe: true },
  visitorsCount: { kind: 'metric', valueKind: 'number', aggregate: 'count(DISTINCT s.visitor_id)', rollupSafe: false },
  sessionsCount: { kind: 'metric', valueKind: 'number', aggregate: 'count(DISTINCT s.session_id)', rollupSafe: false },
};

/** The page column's two source expressions (space, page), raw and in the pages rollup. */
export const PAGE_PARTS = { raw: ['e.space_id', 'e.page_id'], pages: ['r.space_id', 'r.page_id'] } as const;

/** Columns of the public description Quire does not record (geo, device, link and feedback details...): 400 naming them. */
export const UNSUPPORTED_COLUMNS: readonly string[] = [
  'visitorGeoCountry',
  'visitorGeoPoint',
  'visitorDevice',
  'visitorBrowser',
  'visitorOS',
  'visitorBot',
  'visitorClaimProperty',
  'eventLinkTargetValue',
  'eventLinkTargetKind',
  'eventLinkTargetDomain',
  'eventLinkPosition',
  'eventAPIOperationPath',
  'eventAPIOperationMethod',
  'eventLLMSVariant',
  'eventPageNotFoundType',
  'eventMarkdownSource',
  'eventSearchResultRecordId',
  'eventPageFeedbackRating',
  'eventPageFeedbackComment',
  'eventAskResponseRating',
  'pageFeedbackRating',
  'askResponseRating',
  'eventAdDomain',
  'eventAdPlacement',
  'eventTrademarkPlacement',
];

/** Rollup tables and the time column they are keyed by. */
export const ROLLUP_TABLES: Readonly<Record<RollupLevel, string>> = { totals: 'insights_hourly_totals', pages: 'insights_hourly_pages' };

/** The minute rollups, the same columns keyed by `minute`: the whole minutes at the ends of a range's whole hours. */
export const MINUTE_ROLLUP_TABLES: Readonly<Record<RollupLevel, string>> = { totals: 'insights_minute_totals', pages: 'insights_minute_pages' };
