import fc from 'fast-check';
import { parseEvents } from '../../src/modules/insights/insights-event.parser';
import { HLL_STANDARD_ERROR } from '../../src/modules/insights/insights-hll';
import { InsightsFoldService } from '../../src/modules/insights/insights-fold.service';
import { InsightsIngestGate } from '../../src/modules/insights/insights-ingest.gate';
import { compileAggregate } from '../../src/modules/insights/insights-query.compiler';
import { InsightsService } from '../../src/modules/insights/insights.service';
import type { Membership } from '../../src/modules/organizations/membership.entity';
import { createOrganization, membershipOf, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createSite, siteEvent } from '../support/insights-builders';
import { createTestApp, TestApp } from '../support/test-app';

/** Rollups folded behind the watermark, sketches of distinct ids, and ingest back-pressure. No fold timer: the tests fold. */
describe('site insights: rollups, sketches, back-pressure', () => {
  let t: TestApp;
  let org: OrgFixture;
  let caller: Membership;
  beforeAll(async () => {
    t = await createTestApp({ INSIGHTS_FOLD_INTERVAL_MS: '0', INSIGHTS_INGEST_MAX_IN_FLIGHT: '2' });
    org = await createOrganization(t);
    caller = await membershipOf(t, org, org.admin);
  });
  afterAll(() => t.close());

  const fold = () => t.app.get(InsightsFoldService).fold();
  const stored = async (siteId: string): Promise<number> =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM insights_events WHERE site_id = $1`, [siteId]))[0].n;
  const events = (siteId: string) => `/v1/orgs/${org.id}/sites/${siteId}/insights/events`;

  const MINUTE = 60_000;
  const PATHS = ['/a', '/b', '/c'];
  const REFERRERS = [null, 'https://a.example/', 'https://b.example/x'];
  const QUERIES: Record<string, unknown>[] = [
    { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'hour' }] },
    { groupBy: [{ column: 'eventType' }, { column: 'displayContext' }] },
    { groupBy: [{ column: 'urlPath' }, { column: 'referrerDomain' }], where: [{ column: 'eventType', values: ['page_view'] }] },
    { groupBy: [{ column: 'page' }, { column: 'hourOfDay' }], order: { by: { column: 'eventsCount' }, direction: 'desc' } },
    { select: [{ column: 'eventsCount' }] },
  ];

  const event = fc.record({
    // Up to 5 minutes ahead (the ingest window): the current minute's rollup can hold events after now.
    offset: fc.integer({ min: -3 * 60 * MINUTE, max: 5 * MINUTE }),
    type: fc.constantFrom('page_view', 'search_open'),
    path: fc.nat({ max: PATHS.length - 1 }),
    referrer: fc.nat({ max: REFERRERS.length - 1 }),
  });
  type Generated = { offset: number; type: string; path: number; referrer: number };

  it('answers from rollups exactly what raw events answer: random events, folds, late events, ranges and the current minute', async () => {
    const service = t.app.get(InsightsService);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(event, { maxLength: 40 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        // Late events: up to 5 minutes old, stored after the minutes they belong to were folded.
        fc.array(fc.integer({ min: -5 * MINUTE, max: 0 }), { maxLength: 20 }),
        fc.boolean(),
        fc.array(
          fc.tuple(fc.integer({ min: -200 * MINUTE, max: 5 * MINUTE }), fc.integer({ min: 1, max: 200 * MINUTE }), fc.nat({ max: QUERIES.length - 1 })),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        async (chunks, folds, late, foldLate, ranges) => {
          const siteId = await createSite(t, org);
          const now = new Date();
          const store = async (generated: Generated[]) => {
            const rows = generated.map(
              (g) =>
                parseEvents(
                  [siteEvent({ type: g.type, path: PATHS[g.path], referrer: REFERRERS[g.referrer], page: g.path === 2 ? null : `page-${g.path}` })],
                  new Date(now.getTime() + g.offset),
                )[0],
            );
            await service.record(siteId, rows);
          };
          for (const [index, chunk] of chunks.entries()) {
            await store(chunk);
            if (folds[index]) await fold();
          }
          await fold();
          await store(late.map((offset, index) => ({ offset, type: 'page_view', path: index % 3, referrer: index % 3 })));
          if (foldLate) await fold();
          const total = chunks.flat().length + late.length;
          const cases: [unknown, number][] = [
            ...ranges.map(([from, length, query]): [unknown, number] => [
              { from: new Date(now.getTime() + from).toISOString(), to: new Date(now.getTime() + from + length).toISOString() },
              query,
            ]),
            ['last24Hours', 0], // ends now: the current minute is partial
            ['last24Hours', 4],
            // Both ends inside one minute (the current one, then a past one).
            [{ from: new Date(now.getTime() - 20_000).toISOString(), to: now.toISOString() }, 1],
            [{ from: new Date(now.getTime() - 90_000).toISOString(), to: new Date(now.getTime() - 75_000).toISOString() }, 0],
          ];
          let fromRollups = 0;
          for (const [range, query] of cases) {
            const request = { ...QUERIES[query], range, limit: 1000 };
            if (compileAggregate(request, { siteId, now }).source !== 'raw') fromRollups++;
            const viaRollups = await service.aggregate(caller, siteId, request, { now });
            const raw = await service.aggregate(caller, siteId, request, { now, useRollups: false });
            expect(viaRollups).toEqual(raw);
          }
          expect(fromRollups).toBe(cases.length);
          // A range's end is exclusive, and an event may be stamped exactly 5 minutes ahead: end just past it.
          const all = await service.aggregate(caller, siteId, { range: 'last24Hours', limit: 1000 }, { now: new Date(now.getTime() + 5 * MINUTE + 1000) });
          expect(all).toEqual([{ column: 'eventsCount', values: [total] }]);
        },
      ),
      { numRuns: 15 },
    );
  }, 240_000);

  it("reads a minute the range cuts from its rollup when the minute's folded events all lie inside the range, raw otherwise", async () => {
    const service = t.app.get(InsightsService);
    const siteId = await createSite(t, org);
    // A minute in the past, so that the 5-minute window does not matter: events at :10 and :20 of it.
    const minute = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 3 * MINUTE);
    const at = (seconds: number) => new Date(minute.getTime() + seconds * 1000);
    await service.record(siteId, [...parseEvents([siteEvent()], at(10)), ...parseEvents([siteEvent()], at(20))]);
    await fold();
    const [span] = await t.dataSource.query(`SELECT first_at, last_at FROM insights_minute_totals WHERE site_id = $1`, [siteId]);
    expect([span.first_at, span.last_at]).toEqual([at(10), at(20)]);
    // The raw rows are gone (only here, to see which source answered): what still counts came from the rollup.
    await t.dataSource.query(`DELETE FROM insights_events WHERE site_id = $1`, [siteId]);
    const count = async (from: number, to: number) =>
      (await service.aggregate(caller, siteId, { range: { from: at(from).toISOString(), to: at(to).toISOString() }, limit: 1000 }, { now: at(60) }))[0]
        .values[0];
    expect(await count(5, 30)).toBe(2); // both inside: the rollup
    expect(await count(-30, 21)).toBe(2); // from the minute before, cut at :21
    expect(await count(15, 30)).toBe(0); // :10 outside: raw rows of the minute (none left)
    expect(await count(5, 20)).toBe(0); // :20 is the end, excluded: raw
    // A late event folded into the minute widens its span.
    await service.record(siteId, parseEvents([siteEvent()], at(2)));
    await fold();
    const [wider] = await t.dataSource.query(`SELECT first_at, last_at, events::int AS events FROM insights_minute_totals WHERE site_id = $1`, [siteId]);
    expect([wider.first_at, wider.last_at, wider.events]).toEqual([at(2), at(20), 3]);
    // A span unknown (a row folded before spans were kept) reads raw.
    await t.dataSource.query(`UPDATE insights_minute_totals SET first_at = NULL, last_at = NULL WHERE site_id = $1`, [siteId]);
    expect(await count(1, 30)).toBe(1);
  });

  it('counts distinct visitors and sessions from sketches within 3 standard errors (0.81 % each), folded or not', async () => {
    const siteId = await createSite(t, org);
    const insert = (from: number, to: number) =>
      t.dataSource.query(
        `INSERT INTO insights_events (site_id, occurred_at, type, visitor_id, session_id, url, url_path, display_context)
         SELECT $1, now() - (g % 600) * interval '1 second', 'page_view', 'visitor-' || g, 'session-' || (g / 2), 'https://d.example/', '/', 'site'
         FROM generate_series($2::int, $3::int) g`,
        [siteId, from, to],
      );
    // SQL and JavaScript agree on an id's register.
    expect((await t.dataSource.query(`SELECT insights_hll_reg('abc') AS r`))[0].r).toBe(664961);
    await insert(0, 14_999);
    await fold();
    await insert(15_000, 29_999); // not folded: merged from raw register values
    const request = { select: [{ column: 'visitorsCount' }, { column: 'sessionsCount' }, { column: 'eventsCount' }], range: 'last24Hours', limit: 1000 };
    expect(compileAggregate(request, { siteId, now: new Date() }).source).toBe('totals');
    const res = await t.http
      .post(`${events(siteId)}/aggregate`)
      .set(...org.admin.auth)
      .send({ select: request.select, range: request.range });
    expectContract(res, 'aggregateSiteEvents');
    const [visitors, sessions, count] = (res.body.columns as { values: number[] }[]).map((column) => column.values[0]);
    expect(count).toBe(30_000);
    expect(Math.abs(visitors - 30_000) / 30_000).toBeLessThan(3 * HLL_STANDARD_ERROR);
    expect(Math.abs(sessions - 15_000) / 15_000).toBeLessThan(3 * HLL_STANDARD_ERROR);
    // Raw ids answer the exact counts.
    const raw = await t.app.get(InsightsService).aggregate(caller, siteId, request, { useRollups: false });
    expect(raw.map((column) => column.values[0])).toEqual([30_000, 15_000, 30_000]);
  }, 120_000);

  it('folds past the events of a site deleted before they were folded (the rollups keep their foreign keys)', async () => {
    const gone = await createSite(t, org);
    const kept = await createSite(t, org);
    const service = t.app.get(InsightsService);
    await service.record(gone, parseEvents([siteEvent()], new Date()));
    await t.dataSource.query(`DELETE FROM sites WHERE id = $1`, [gone]);
    await service.record(kept, parseEvents([siteEvent(), siteEvent()], new Date()));
    const before = await t.dataSource.query(`SELECT watermark FROM insights_fold_state`);
    const result = await fold();
    expect(BigInt(result.to)).toBeGreaterThan(BigInt(before[0].watermark));
    const [{ n }] = await t.dataSource.query(`SELECT coalesce(sum(events), 0)::int AS n FROM insights_minute_totals WHERE site_id = $1`, [kept]);
    expect(n).toBe(2);
  });

  it('answers 429 with Retry-After when ingestion is behind, stores nothing of a refused batch, and loses no acknowledged one', async () => {
    const siteId = await createSite(t, org);
    const gate = t.app.get(InsightsIngestGate);
    const postOne = () =>
      t.http
        .post(events(siteId))
        .set(...org.admin.auth)
        .send({ events: [siteEvent()] });
    const tickets = [gate.acquire(), gate.acquire()]; // INSIGHTS_INGEST_MAX_IN_FLIGHT = 2 batches are being stored
    try {
      const refused = await postOne();
      expectErrorEnvelope(refused, 429, /2 batches are being stored/);
      expect(refused.headers['retry-after']).toBe('1');
      expect(await stored(siteId)).toBe(0);
    } finally {
      tickets.forEach((ticket) => gate.release(ticket));
    }
    // One batch in flight for longer than INSIGHTS_INGEST_MAX_LAG_MS (2000): the database does not keep up.
    const slow = gate.acquire(Date.now() - 2500);
    try {
      const refused = await postOne();
      expectErrorEnvelope(refused, 429, /a batch has been being stored for \d+ ms/);
      expect(refused.headers['retry-after']).toBe('1');
      expect(await stored(siteId)).toBe(0);
    } finally {
      gate.release(slow);
    }
    // 12 concurrent batches of 50 with room for 2: each is acknowledged (204) or refused (429), and the
    // stored events are exactly the acknowledged ones; refused batches retried until taken all land once.
    const batch = (k: number) => Array.from({ length: 50 }, (_, i) => siteEvent({ visitorId: `v${k}-${i}` }));
    const post = (k: number) =>
      t.http
        .post(events(siteId))
        .set(...org.admin.auth)
        .send({ events: batch(k) });
    const first = await Promise.all(Array.from({ length: 12 }, (_, k) => post(k)));
    expect(first.every((res) => res.status === 204 || res.status === 429)).toBe(true);
    const acknowledged = first.filter((res) => res.status === 204).length;
    expect(acknowledged).toBeGreaterThan(0);
    expect(await stored(siteId)).toBe(acknowledged * 50);
    for (const [k, res] of first.entries()) {
      let answer = res;
      while (answer.status === 429) answer = await post(k);
      expect(answer.status).toBe(204);
    }
    expect(await stored(siteId)).toBe(12 * 50);
    expect(gate.current).toBe(0);
  });

  it('takes a batch while the pool is merely busy: callers waiting for a connection below INSIGHTS_INGEST_MAX_POOL_WAITING (32)', async () => {
    const siteId = await createSite(t, org);
    // 20 sleeping statements on the pool of 10: 10 callers wait (the former limit, 8, refused here).
    const sleepers = Array.from({ length: 20 }, () => t.dataSource.query(`SELECT pg_sleep(0.4)`));
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const waiting = (t.dataSource.driver as unknown as { master: { waitingCount: number } }).master.waitingCount;
      expect(waiting).toBeGreaterThan(8);
      const res = await t.http
        .post(events(siteId))
        .set(...org.admin.auth)
        .send({ events: [siteEvent()] });
      expect(res.status).toBe(204);
      expect(await stored(siteId)).toBe(1);
    } finally {
      await Promise.all(sleepers);
    }
  });
});
