import { DomainError } from '../../src/common/errors/domain-error';
import { parseEvents, pageViewsOf } from '../../src/modules/insights/insights-event.parser';
import { compileAggregate, resolveRange } from '../../src/modules/insights/insights-query.compiler';

const now = new Date('2026-06-15T12:34:56.789Z');
const compile = (request: Record<string, unknown>, useRollups?: boolean) =>
  compileAggregate({ range: 'lastYear', limit: 1000, ...request }, { siteId: 'site-1', now, useRollups, watermark: '42' });
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('insights aggregate compiler', () => {
  it('never puts request text into the SQL: values, claim names and the site travel as parameters', () => {
    const evil = "x'); DROP TABLE insights_events; --";
    const compiled = compile({
      select: [{ column: 'visitorClaim', claim: evil }, { column: 'eventsCount' }],
      where: [
        { column: 'urlPath', values: [evil] },
        { column: 'visitorClaim', claim: evil, values: [evil] },
      ],
    });
    expect(compiled.sql).not.toContain('DROP');
    expect(compiled.sql).not.toContain("x'");
    expect(compiled.params).toEqual(expect.arrayContaining(['site-1', evil, [evil]]));
    // The same claim name is bound once, so its expression is the same in SELECT and WHERE.
    expect(compiled.params.filter((value) => value === evil)).toHaveLength(1);
  });

  it('refuses unknown columns, intervals, operators and properties, naming where they are', () => {
    expect(refusal(() => compile({ select: [{ column: 'secret' }] }))).toBe('select[0].column: unknown column "secret"');
    expect(refusal(() => compile({ groupBy: [{ column: 'datetime', interval: 'minute' }] }))).toBe('groupBy[0].interval: unknown interval "minute"');
    expect(refusal(() => compile({ groupBy: [{ column: 'urlPath', interval: 'hour' }] }))).toMatch(/groupBy\[0\]\.interval: only the datetime column/);
    expect(refusal(() => compile({ where: [{ column: 'urlPath', operator: 'regex', values: ['a'] }] }))).toBe('where[0].operator: unknown operator "regex"');
    expect(refusal(() => compile({ where: [{ column: 'urlPath', values: ['a'], sql: '1=1' }] }))).toBe('where[0].sql: unknown property');
    expect(refusal(() => compile({ where: [{ column: 'hourOfDay', values: [24] }] }))).toMatch(/where\[0\]\.values\[0\]: must be an integer from 0 to 23/);
    expect(refusal(() => compile({ where: [{ column: 'urlPath', values: [null] }] }))).toBe('where[0].values[0]: must not be null');
    expect(refusal(() => compile({ where: [{ column: 'hourOfDay', operator: 'lessThan', values: [1, 2] }] }))).toMatch(/exactly one value/);
    expect(refusal(() => compile({ order: { by: { column: 'urlPath' }, direction: 'sideways' } }))).toMatch(/order\.direction/);
  });

  it('reads the narrowest rollup that holds every column, and raw events otherwise', () => {
    expect(compile({ groupBy: [{ column: 'datetime', interval: 'hour' }] }).source).toBe('totals');
    expect(compile({ groupBy: [{ column: 'eventType' }, { column: 'dayOfWeek' }] }).source).toBe('totals');
    expect(compile({ groupBy: [{ column: 'urlPath' }], where: [{ column: 'page', values: [null] }] }).source).toBe('pages');
    expect(compile({ groupBy: [{ column: 'referrer' }] }).source).toBe('raw');
    // Distinct counts from the totals' sketches, unless they filter or order (then raw ids).
    expect(compile({ select: [{ column: 'visitorsCount' }] }).source).toBe('totals');
    expect(compile({ select: [{ column: 'visitorsCount' }], groupBy: [{ column: 'urlPath' }] }).source).toBe('raw');
    expect(compile({ select: [{ column: 'visitorsCount' }], order: { by: { column: 'visitorsCount' }, direction: 'desc' } }).source).toBe('raw');
    expect(compile({ select: [{ column: 'sessionsCount' }], where: [{ column: 'sessionsCount', operator: 'greaterThan', values: [3] }] }).source).toBe('raw');
    expect(compile({ where: [{ column: 'datetime', operator: 'greaterThan', values: ['2026-06-01T00:00:00Z'] }] }).source).toBe('raw');
    expect(compile({ groupBy: [{ column: 'datetime', interval: 'hour' }] }, false).source).toBe('raw');
  });

  it('splits the range into whole hours, whole minutes at their ends, the minutes it cuts (rollup or raw by span) and unfolded events', () => {
    const compiled = compile({ range: { from: '2026-06-01T10:20:30Z', to: '2026-06-02T08:45:10Z' } });
    // hours, minutes before, minutes after, each cut minute as rollup and as folded raw rows, unfolded
    expect(compiled.sql.match(/UNION ALL/g)).toHaveLength(7);
    expect(compiled.sql.match(/insights_hourly_totals/g)).toHaveLength(1);
    // two whole-minute branches, two cut-minute rollups, and the span check of each cut minute in both of its branches
    expect(compiled.sql.match(/insights_minute_totals/g)).toHaveLength(8);
    expect(compiled.sql.match(/w\.first_at >= \$\d+::timestamptz AND w\.last_at < \$\d+::timestamptz/g)).toHaveLength(4);
    expect(compiled.sql).toMatch(/ingest_xid >= \$\d+::bigint/);
    expect(compiled.sql.match(/ingest_xid < \$\d+::bigint/g)).toHaveLength(2);
    expect(compiled.params).toEqual(
      expect.arrayContaining([
        new Date('2026-06-01T11:00:00Z'),
        new Date('2026-06-02T08:00:00Z'),
        new Date('2026-06-01T10:20:00Z'),
        new Date('2026-06-01T10:21:00Z'),
        new Date('2026-06-02T08:45:00Z'),
        new Date('2026-06-02T08:46:00Z'),
        '42',
      ]),
    );
    // Aligned on minutes inside one hour: one minute branch and the unfolded events, no cut minute.
    const aligned = compile({ range: { from: '2026-06-01T10:20:00Z', to: '2026-06-01T10:40:00Z' } });
    expect(aligned.sql.match(/UNION ALL/g)).toHaveLength(1);
    expect(aligned.sql).not.toMatch(/insights_hourly/);
    expect(aligned.sql).not.toMatch(/first_at/);
    // Inside one minute: that minute, cut at both ends (rollup or raw), and the unfolded events.
    const inside = compile({ range: { from: '2026-06-01T10:20:10Z', to: '2026-06-01T10:20:50Z' } });
    expect(inside.source).toBe('totals');
    expect(inside.sql.match(/UNION ALL/g)).toHaveLength(2);
    expect(inside.params).toEqual(expect.arrayContaining([new Date('2026-06-01T10:20:00Z'), new Date('2026-06-01T10:21:00Z')]));
  });

  it('resolves presets as the period that ends now, and refuses an empty custom range', () => {
    expect(resolveRange('lastYear', now)).toEqual({ from: new Date('2025-06-15T12:34:56.789Z'), to: now });
    expect(resolveRange('last24Hours', now).from).toEqual(new Date('2026-06-14T12:34:56.789Z'));
    expect(refusal(() => resolveRange({ from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, now))).toMatch(/from must be before to/);
    expect(refusal(() => resolveRange({ from: 'yesterday', to: '2026-01-01T00:00:00Z' }, now))).toMatch(/range\.from/);
  });
});

describe('insights event parser', () => {
  const event = (extra: Record<string, unknown> = {}) => ({
    type: 'page_view',
    session: { visitorId: 'v', sessionId: 's', cookies: {}, userAgent: 'UA', language: null, referrer: 'https://www.google.com/search?q=a' },
    location: {
      url: 'https://docs.example.com/guide/install?utm_source=news&utm_campaign=launch',
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      space: 'sp',
      revision: null,
      page: 'pg',
    },
    ...extra,
  });

  it('flattens an event: path, referrer domain, UTM parameters, time now when absent', () => {
    const [row] = parseEvents([event()], now);
    expect(row).toMatchObject({
      occurredAt: now,
      urlPath: '/guide/install',
      referrerDomain: 'www.google.com',
      utmSource: 'news',
      utmCampaign: 'launch',
      utmMedium: null,
      displayContext: 'site',
      spaceId: 'sp',
      pageId: 'pg',
      visitorClaims: null,
      data: null,
    });
  });

  it('takes a timestamp up to 5 minutes away and refuses one beyond, naming the event', () => {
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(parseEvents([event({ timestamp: at(-300_000) }), event({ timestamp: at(300_000) })], now)).toHaveLength(2);
    expect(refusal(() => parseEvents([event(), event({ timestamp: at(300_001) })], now))).toBe(
      'events[1].timestamp: must be within 5 minutes of the current time',
    );
  });

  it('keeps the page views of a batch apart (the seam for site_view integration events)', () => {
    const rows = parseEvents([event(), event({ type: 'search_open' })], now);
    expect(pageViewsOf(rows).map((row) => row.type)).toEqual(['page_view']);
  });
});
