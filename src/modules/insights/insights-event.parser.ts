import { DISPLAY_CONTEXTS, EVENT_TYPES } from './insights-columns';
import { parseTimestamp } from './insights-query.compiler';
import { insightsError } from './insights.errors';
import type { InsightEventRow } from './insights.read-model';

/**
 * Checks a batch of tracked events against the public `SiteInsightsEvent` shape and flattens each one
 * into a row. Pure: the caller passes the current time. A refusal names the event and its member
 * (`events[3].location.url: ...`). An event whose timestamp is more than `TIMESTAMP_WINDOW_MS` away
 * from now is refused, as the public description states; an absent timestamp means now.
 */
export const TIMESTAMP_WINDOW_MS = 5 * 60_000;

const SESSION_KEYS = ['visitorId', 'sessionId', 'cookies', 'ip', 'userAgent', 'language', 'referrer', 'visitorAuthToken', 'visitorAuthClaims'];
const LOCATION_KEYS = ['url', 'displayContext', 'siteSection', 'siteSpace', 'siteShareKey', 'space', 'revision', 'page'];
const BASE_KEYS = ['type', 'session', 'location', 'timestamp'];
const UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

const invalid = (message: string) => insightsError('insights.invalid_event', message);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseEvents(events: unknown[], now: Date): InsightEventRow[] {
  return events.map((event, index) => parseEvent(event, `events[${index}]`, now));
}

/** The page views of a batch: what a `site_view` integration event will be built from (a later issue). */
export function pageViewsOf(rows: InsightEventRow[]): InsightEventRow[] {
  return rows.filter((row) => row.type === 'page_view');
}

function parseEvent(event: unknown, path: string, now: Date): InsightEventRow {
  if (!isObject(event)) throw invalid(`${path}: must be an object`);
  const type = event.type;
  if (typeof type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw invalid(`${path}.type: must be one of ${EVENT_TYPES.join(', ')}`);
  }
  const session = event.session;
  if (!isObject(session)) throw invalid(`${path}.session: must be an object`);
  onlyKeys(session, SESSION_KEYS, `${path}.session`);
  const location = event.location;
  if (!isObject(location)) throw invalid(`${path}.location: must be an object`);
  onlyKeys(location, LOCATION_KEYS, `${path}.location`);

  let occurredAt = now;
  if (event.timestamp !== undefined) {
    occurredAt = parseTimestamp(event.timestamp, `${path}.timestamp`);
    if (Math.abs(occurredAt.getTime() - now.getTime()) > TIMESTAMP_WINDOW_MS) {
      throw invalid(`${path}.timestamp: must be within 5 minutes of the current time`);
    }
  }

  const url = parseUrl(location.url, `${path}.location.url`, false) as URL;
  const referrerValue = session.referrer;
  if (referrerValue === undefined) throw invalid(`${path}.session.referrer: is required (null, "" or a URL)`);
  const referrer = referrerValue === null || referrerValue === '' ? null : parseUrl(referrerValue, `${path}.session.referrer`, true);

  const cookies = session.cookies;
  if (!isObject(cookies) || Object.values(cookies).some((value) => typeof value !== 'string')) {
    throw invalid(`${path}.session.cookies: must be an object of strings`);
  }
  if (session.ip !== undefined) text(session.ip, `${path}.session.ip`, 64);
  if (session.visitorAuthToken !== undefined && session.visitorAuthToken !== null) text(session.visitorAuthToken, `${path}.session.visitorAuthToken`, 8192);
  const claims = session.visitorAuthClaims;
  if (claims !== undefined && !isObject(claims)) throw invalid(`${path}.session.visitorAuthClaims: must be an object`);
  if (!(session.language === null || typeof session.language === 'string')) throw invalid(`${path}.session.language: must be a string or null`);
  if (typeof session.userAgent !== 'string') throw invalid(`${path}.session.userAgent: must be a string`);

  const displayContext = location.displayContext ?? 'site';
  if (typeof displayContext !== 'string' || !(DISPLAY_CONTEXTS as readonly string[]).includes(displayContext)) {
    throw invalid(`${path}.location.displayContext: must be one of ${DISPLAY_CONTEXTS.join(', ')}`);
  }

  const extra = Object.fromEntries(Object.entries(event).filter(([key]) => !BASE_KEYS.includes(key)));
  return {
    occurredAt,
    type,
    visitorId: text(session.visitorId, `${path}.session.visitorId`, 256, 1),
    sessionId: text(session.sessionId, `${path}.session.sessionId`, 256, 1),
    url: url.href,
    urlPath: url.pathname,
    displayContext,
    siteSection: idOrNull(location, 'siteSection', path),
    siteSpace: idOrNull(location, 'siteSpace', path),
    siteShareKey: idOrNull(location, 'siteShareKey', path),
    spaceId: idOrNull(location, 'space', path),
    revisionId: idOrNull(location, 'revision', path),
    pageId: idOrNull(location, 'page', path),
    referrer: referrer ? referrer.href : referrerValue === '' ? '' : null,
    referrerDomain: referrer ? referrer.hostname : null,
    language: session.language === null ? null : text(session.language, `${path}.session.language`, 64),
    userAgent: text(session.userAgent, `${path}.session.userAgent`, 1024),
    ...utmOf(url),
    visitorClaims: claims && Object.keys(claims).length > 0 ? claims : null,
    data: Object.keys(extra).length > 0 ? extra : null,
  };
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], path: string): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) throw invalid(`${path}.${key}: unknown property`);
}

function text(value: unknown, path: string, max: number, min = 0): string {
  if (typeof value !== 'string') throw invalid(`${path}: must be a string`);
  if (value.length < min || value.length > max) throw invalid(`${path}: must be ${min} to ${max} characters`);
  return value;
}

/** The location's ids are required and nullable in the public schema. */
function idOrNull(location: Record<string, unknown>, key: string, path: string): string | null {
  const value = location[key];
  if (value === undefined) throw invalid(`${path}.location.${key}: is required (a string or null)`);
  return value === null ? null : text(value, `${path}.location.${key}`, 256);
}

function parseUrl(value: unknown, path: string, optional: boolean): URL | null {
  if (value === undefined && optional) return null;
  if (typeof value !== 'string' || value.length > 2048) throw invalid(`${path}: must be a URL of at most 2048 characters`);
  try {
    return new URL(value);
  } catch {
    throw invalid(`${path}: must be a URL of at most 2048 characters`);
  }
}

function utmOf(url: URL): Pick<InsightEventRow, 'utmSource' | 'utmMedium' | 'utmCampaign' | 'utmTerm' | 'utmContent'> {
  const [utmSource, utmMedium, utmCampaign, utmTerm, utmContent] = UTM.map((name) => url.searchParams.get(name)?.slice(0, 256) ?? null);
  return { utmSource, utmMedium, utmCampaign, utmTerm, utmContent };
}
