import { Membership } from '../../src/modules/organizations/membership.entity';
import { parseEvents } from '../../src/modules/insights/insights-event.parser';
import { compileAggregate } from '../../src/modules/insights/insights-query.compiler';
import { InsightsFoldService } from '../../src/modules/insights/insights-fold.service';
import { InsightsPartitionsService } from '../../src/modules/insights/insights-partitions.service';
import { InsightsRepository } from '../../src/modules/insights/insights.repository';
import { InsightsService } from '../../src/modules/insights/insights.service';
import { itChecksAccess } from '../support/access-checks';
import { addMember, createOrganization, membershipOf, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createSite, siteEvent } from '../support/insights-builders';
import { createTestApp, TestApp } from '../support/test-app';
import fc from 'fast-check';
import { HLL_STANDARD_ERROR } from '../../src/modules/insights/insights-hll';
import { InsightsIngestGate } from '../../src/modules/insights/insights-ingest.gate';

describe('site insights', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const base = (orgId: string, siteId: string) => `/v1/orgs/${orgId}/sites/${siteId}/insights`;
  const stored = async (siteId: string): Promise<number> =>
    Number((await t.dataSource.query(`SELECT count(*) AS n FROM insights_events WHERE site_id = $1`, [siteId]))[0].n);

  async function withSite(): Promise<{ org: OrgFixture; siteId: string }> {
    const org = await createOrganization(t);
    return { org, siteId: await createSite(t, org) };
  }
  const track = (org: OrgFixture, siteId: string, events: unknown[]) =>
    t.http
      .post(`${base(org.id, siteId)}/events`)
      .set(...org.admin.auth)
      .send({ events });
  const aggregate = (org: OrgFixture, siteId: string, body: unknown) =>
    t.http
      .post(`${base(org.id, siteId)}/events/aggregate`)
      .set(...org.admin.auth)
      .send(body as object);

  /** Rows of stored history (any time), straight through the service that the route also uses. */
  async function record(siteId: string, events: Record<string, unknown>[], at: Date[]): Promise<void> {
    const rows = events.map((event, index) => parseEvents([event], at[index])[0]);
    await t.app.get(InsightsService).record(siteId, rows);
  }

  describe('POST …/insights/events (trackEventsInSiteById)', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, siteId) => t.http.post(`${base(org.id, siteId)}/events`).send({ events: [siteEvent()] }),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to another organization, for an unknown site and for a site of another organization',
        also: async (org, siteId) => {
          expectErrorEnvelope(await track(org, 'unknown-site', [siteEvent()]), 404);
          const other = await createOrganization(t);
          // The caller is an admin of `other`, naming `org`'s site under their own organization.
          expectErrorEnvelope(await track(other, siteId, [siteEvent()]), 404);
          expect(await stored(siteId)).toBe(0);
        },
      },
      member: { role: null, status: 403, title: 'refuses guests with 403', after: async (_org, siteId) => expect(await stored(siteId)).toBe(0) },
    });

    it('stores a batch (a read member may track) and aggregates it per hour', async () => {
      const { org, siteId } = await withSite();
      const reader = await addMember(t, org, 'read');
      const now = Date.now();
      const events = [
        siteEvent(),
        siteEvent({ timestamp: new Date(now - 60_000).toISOString() }),
        siteEvent({ path: '/other', visitorId: 'visitor-2', sessionId: 'session-2' }),
      ];
      const res = await t.http
        .post(`${base(org.id, siteId)}/events`)
        .set(...reader.auth)
        .send({ events })
        .expect(204);
      expect(res.body).toEqual({});
      expect(await stored(siteId)).toBe(3);

      const agg = await t.http
        .post(`${base(org.id, siteId)}/events/aggregate`)
        .set(...reader.auth)
        .send({ select: [{ column: 'eventsCount' }, { column: 'visitorsCount' }, { column: 'sessionsCount' }], range: 'last24Hours' })
        .expect(200);
      expectContract(agg, 'aggregateSiteEvents');
      expect(agg.body).toEqual({
        columns: [
          { column: 'eventsCount', values: [3] },
          { column: 'visitorsCount', values: [2] },
          { column: 'sessionsCount', values: [2] },
        ],
      });
    });

    it('stores every member of an event as sent: the time to the millisecond, empty strings, nulls, claims and other members', async () => {
      const { org, siteId } = await withSite();
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000 + 999); // a whole second minus 1 ms: rounding would show
      const full = siteEvent({ timestamp: at.toISOString(), referrer: 'https://www.google.com/search?q=x', claims: { plan: 'pro', n: 2 } });
      (full.location as Record<string, unknown>).url = 'https://docs.example.com/a/b?utm_source=s&utm_medium=m&utm_campaign=c&utm_term=t&utm_content=k';
      Object.assign(full.location as Record<string, unknown>, {
        siteSection: 'sec',
        siteSpace: 'ss',
        siteShareKey: 'key',
        revision: 'rev',
        displayContext: 'embed',
      });
      const bare = siteEvent({ referrer: '', space: null, page: null });
      (bare.session as Record<string, unknown>).language = null;
      await track(org, siteId, [{ ...full, query: 'install' }, bare]).expect(204);

      const rows: Record<string, unknown>[] = await t.dataSource.query(
        `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, type, visitor_id, session_id, url, url_path, display_context,
                site_section, site_space, site_share_key, space_id, revision_id, page_id, referrer, referrer_domain, language, user_agent,
                utm_source, utm_medium, utm_campaign, utm_term, utm_content, visitor_claims, data
         FROM insights_events WHERE site_id = $1 ORDER BY referrer NULLS LAST`,
        [siteId],
      );
      expect(rows).toHaveLength(2);
      const [empty, first] = rows; // '' sorts before the URL
      expect(first).toEqual({
        at: at.toISOString(),
        type: 'page_view',
        visitor_id: 'visitor-1',
        session_id: 'session-1',
        url: 'https://docs.example.com/a/b?utm_source=s&utm_medium=m&utm_campaign=c&utm_term=t&utm_content=k',
        url_path: '/a/b',
        display_context: 'embed',
        site_section: 'sec',
        site_space: 'ss',
        site_share_key: 'key',
        space_id: 'space-1',
        revision_id: 'rev',
        page_id: 'page-1',
        referrer: 'https://www.google.com/search?q=x',
        referrer_domain: 'www.google.com',
        language: 'en',
        user_agent: 'Mozilla/5.0',
        utm_source: 's',
        utm_medium: 'm',
        utm_campaign: 'c',
        utm_term: 't',
        utm_content: 'k',
        visitor_claims: { plan: 'pro', n: 2 },
        data: { query: 'install' },
      });
      expect(empty).toMatchObject({
        referrer: '',
        referrer_domain: null,
        language: null,
        space_id: null,
        page_id: null,
        site_section: null,
        revision_id: null,
        display_context: 'site',
        utm_source: null,
        visitor_claims: null,
        data: null,
      });
      expect(Math.abs(Date.parse(empty.at as string) - Date.now())).toBeLessThan(5 * 60_000);
    });

    it('accepts an absent timestamp (now), refuses one more than 5 minutes away naming the event, and stores nothing', async () => {
      const { org, siteId } = await withSite();
      const late = new Date(Date.now() - 6 * 60_000).toISOString();
      const early = new Date(Date.now() + 6 * 60_000).toISOString();
      expectErrorEnvelope(await track(org, siteId, [siteEvent(), siteEvent({ timestamp: late })]), 400, /events\[1\]\.timestamp: must be within 5 minutes/);
      expectErrorEnvelope(await track(org, siteId, [siteEvent({ timestamp: early })]), 400, /events\[0\]\.timestamp/);
      expectErrorEnvelope(await track(org, siteId, [siteEvent({ timestamp: 'yesterday' })]), 400, /events\[0\]\.timestamp: must be an ISO 8601/);
      expect(await stored(siteId)).toBe(0);
    });

    it('checks each event against the public shape and names what it refuses', async () => {
      const { org, siteId } = await withSite();
      const noUrl = siteEvent();
      delete (noUrl.location as Record<string, unknown>).url;
      expectErrorEnvelope(await track(org, siteId, [siteEvent(), noUrl]), 400, /events\[1\]\.location\.url/);
      expectErrorEnvelope(await track(org, siteId, [siteEvent({ type: 'nope' })]), 400, /events\[0\]\.type: must be one of/);
      const noSession = siteEvent();
      delete noSession.session;
      expectErrorEnvelope(await track(org, siteId, [noSession]), 400, /events\[0\]\.session: must be an object/);
      const extra = siteEvent();
      (extra.location as Record<string, unknown>).hacked = true;
      expectErrorEnvelope(await track(org, siteId, [extra]), 400, /events\[0\]\.location\.hacked: unknown property/);
      expectErrorEnvelope(await track(org, siteId, [siteEvent({ referrer: 'not a url' })]), 400, /events\[0\]\.session\.referrer/);
      expectErrorEnvelope(
        await t.http
          .post(`${base(org.id, siteId)}/events`)
          .set(...org.admin.auth)
          .send({}),
        400,
        /events/,
      );
      expectErrorEnvelope(
        await t.http
          .post(`${base(org.id, siteId)}/events`)
          .set(...org.admin.auth)
          .send({ events: null }),
        400,
        /events/,
      );
      expect(await stored(siteId)).toBe(0);
    });

    it('takes a batch of 1000 events and refuses 1001', async () => {
      const { org, siteId } = await withSite();
      await track(
        org,
        siteId,
        Array.from({ length: 1000 }, (_, i) => siteEvent({ visitorId: `v${i % 7}` })),
      ).expect(204);
      expect(await stored(siteId)).toBe(1000);
      expectErrorEnvelope(
        await track(
          org,
          siteId,
          Array.from({ length: 1001 }, () => siteEvent()),
        ),
        400,
        /events/,
      );
      expect(await stored(siteId)).toBe(1000);
    });

    it('keeps the type-specific members of other event types', async () => {
      const { org, siteId } = await withSite();
      await track(org, siteId, [{ ...siteEvent({ type: 'search_type_query' }), query: 'install' }]).expect(204);
      const res = await aggregate(org, siteId, { groupBy: [{ column: 'eventSearchQuery' }], range: 'last24Hours' }).expect(200);
      expectContract(res, 'aggregateSiteEvents');
      expect(res.body.columns).toEqual([
        { column: 'eventSearchQuery', values: ['install'] },
        { column: 'eventsCount', values: [1] },
      ]);
    });
  });

  describe('POST …/insights/events/aggregate (aggregateSiteEvents)', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, siteId) => t.http.post(`${base(org.id, siteId)}/events/aggregate`).send({ range: 'lastYear' }),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to another organization and for a site of another organization',
        also: async (_org, siteId) => {
          const other = await createOrganization(t);
          expectErrorEnvelope(await aggregate(other, siteId, { range: 'lastYear' }), 404);
        },
      },
      member: { role: null, status: 403, title: 'refuses guests with 403' },
    });

    /** A site with history: 3 hours ago (2 views of /a from google, 1 of /b), 1 hour ago (1 search of /a), now (1 view of /b). */
    async function siteWithHistory() {
      const { org, siteId } = await withSite();
      const hour = (n: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - n * 3_600_000 + 60_000);
      await record(
        siteId,
        [
          siteEvent({ path: '/a', referrer: 'https://www.google.com/search?q=x', page: 'page-a' }),
          siteEvent({ path: '/a', referrer: 'https://www.google.com/', page: 'page-a', visitorId: 'visitor-2' }),
          siteEvent({ path: '/b', page: null }),
          siteEvent({ path: '/a', type: 'search_open', page: 'page-a' }),
          siteEvent({ path: '/b', referrer: 'https://news.ycombinator.com/', page: null }),
        ],
        [hour(3), hour(3), hour(3), hour(1), new Date()],
      );
      return { org, siteId, hour };
    }

    it('counts per hour what was sent', async () => {
      const { org, siteId, hour } = await siteWithHistory();
      const res = await aggregate(org, siteId, {
        select: [{ column: 'eventsCount' }],
        groupBy: [{ column: 'datetime', interval: 'hour' }],
        range: 'last7Days',
      }).expect(200);
      expectContract(res, 'aggregateSiteEvents');
      const nowHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      expect(res.body.columns).toEqual([
        {
          column: 'datetime',
          values: [new Date(hour(3).getTime() - 60_000).toISOString(), new Date(hour(1).getTime() - 60_000).toISOString(), nowHour.toISOString()],
        },
        { column: 'eventsCount', values: [3, 1, 1] },
      ]);
    });

    it('filters with where (in, notIn, comparisons) and groups by page and by referrer', async () => {
      const { org, siteId } = await siteWithHistory();
      const pageViews = await aggregate(org, siteId, {
        where: [{ column: 'eventType', values: ['page_view'] }],
        groupBy: [{ column: 'page' }],
        range: 'lastYear',
      }).expect(200);
      expectContract(pageViews, 'aggregateSiteEvents');
      expect(pageViews.body.columns).toEqual([
        {
          column: 'page',
          values: [
            { space: 'space-1', page: 'page-a' },
            { space: 'space-1', page: null },
          ],
        },
        { column: 'eventsCount', values: [2, 2] },
      ]);

      const byReferrer = await aggregate(org, siteId, {
        select: [{ column: 'referrer' }, { column: 'eventsCount' }],
        where: [{ column: 'urlPath', operator: 'notIn', values: ['/b'] }],
        order: { by: { column: 'eventsCount' }, direction: 'desc' },
        range: 'lastYear',
      }).expect(200);
      expectContract(byReferrer, 'aggregateSiteEvents');
      expect(byReferrer.body.columns).toEqual([
        { column: 'referrer', values: ['', 'https://www.google.com/', 'https://www.google.com/search?q=x'] },
        { column: 'eventsCount', values: [1, 1, 1] },
      ]);

      const byDomain = await aggregate(org, siteId, {
        groupBy: [{ column: 'referrerDomain' }],
        order: { by: { column: 'eventsCount' }, direction: 'desc' },
        range: 'lastYear',
      }).expect(200);
      expect(byDomain.body.columns).toEqual([
        { column: 'referrerDomain', values: ['', 'www.google.com', 'news.ycombinator.com'] },
        { column: 'eventsCount', values: [2, 2, 1] },
      ]);

      const notFound = await aggregate(org, siteId, { where: [{ column: 'page', values: [null] }], range: 'lastYear' }).expect(200);
      expect(notFound.body.columns).toEqual([{ column: 'eventsCount', values: [2] }]);

      const busyHours = await aggregate(org, siteId, {
        groupBy: [{ column: 'datetime', interval: 'hour' }],
        where: [{ column: 'eventsCount', operator: 'greaterThan', values: [1] }],
        range: 'lastYear',
      }).expect(200);
      expect(busyHours.body.columns[1]).toEqual({ column: 'eventsCount', values: [3] });
    });

    it('accepts limit 1 and 1000 and refuses 0, 1001 and a missing range', async () => {
      const { org, siteId } = await siteWithHistory();
      const one = await aggregate(org, siteId, { groupBy: [{ column: 'urlPath' }], limit: 1, range: 'lastYear' }).expect(200);
      expect(one.body.columns).toEqual([
        { column: 'urlPath', values: ['/a'] },
        { column: 'eventsCount', values: [3] },
      ]);
      const all = await aggregate(org, siteId, { groupBy: [{ column: 'urlPath' }], limit: 1000, range: 'lastYear' }).expect(200);
      expect(all.body.columns[0].values).toEqual(['/a', '/b']);
      expectErrorEnvelope(await aggregate(org, siteId, { limit: 0, range: 'lastYear' }), 400, /limit/);
      expectErrorEnvelope(await aggregate(org, siteId, { limit: 1001, range: 'lastYear' }), 400, /limit/);
      expectErrorEnvelope(await aggregate(org, siteId, { limit: null, range: 'lastYear' }), 400, /limit/);
      expectErrorEnvelope(await aggregate(org, siteId, { select: [{ column: 'eventsCount' }] }), 400, /range/);
      expectErrorEnvelope(await aggregate(org, siteId, { range: 'lastCentury' }), 400, /range: unknown range "lastCentury"/);
      expectErrorEnvelope(await aggregate(org, siteId, { range: { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' } }), 400, /range/);
    });

    it('refuses an unknown column, interval or operator, naming it', async () => {
      const { org, siteId } = await withSite();
      expectErrorEnvelope(
        await aggregate(org, siteId, { select: [{ column: 'password' }], range: 'lastYear' }),
        400,
        /select\[0\]\.column: unknown column "password"/,
      );
      expectErrorEnvelope(
        await aggregate(org, siteId, { groupBy: [{ column: 'urlPath' }, { column: 'datetime', interval: 'fortnight' }], range: 'lastYear' }),
        400,
        /groupBy\[1\]\.interval: unknown interval "fortnight"/,
      );
      expectErrorEnvelope(
        await aggregate(org, siteId, { where: [{ column: 'urlPath', operator: 'like', values: ['/a'] }], range: 'lastYear' }),
        400,
        /where\[0\]\.operator: unknown operator "like"/,
      );
      expectErrorEnvelope(
        await aggregate(org, siteId, { where: [{ column: 'urlPath', operator: 'greaterThan', values: ['/a'] }], range: 'lastYear' }),
        400,
        /where\[0\]\.operator/,
      );
      expectErrorEnvelope(
        await aggregate(org, siteId, { select: [{ column: 'visitorGeoCountry' }], range: 'lastYear' }),
        400,
        /"visitorGeoCountry" is not recorded/,
      );
      expectErrorEnvelope(await aggregate(org, siteId, { order: { by: { column: 'urlPath' }, direction: 'asc' }, range: 'lastYear' }), 400, /order\.by/);
      expectErrorEnvelope(
        await aggregate(org, siteId, { where: [{ column: 'eventType', values: ['page_viewed'] }], range: 'lastYear' }),
        400,
        /where\[0\]\.values\[0\]/,
      );
    });

    it('keeps SQL-looking input as data', async () => {
      const { org, siteId } = await withSite();
      const evil = "/x'); DROP TABLE insights_events; --";
      await track(org, siteId, [siteEvent({ path: encodeURI(evil), claims: { "role'--": "admin' OR '1'='1" } })]).expect(204);
      const res = await aggregate(org, siteId, {
        select: [{ column: 'visitorClaim', claim: "role'--" }, { column: 'eventsCount' }],
        where: [
          { column: 'urlPath', values: [encodeURI(evil).replace(/'/g, '%27'), encodeURI(evil), "' OR 1=1 --"] },
          { column: 'visitorClaim', claim: "role'--", values: ["admin' OR '1'='1"] },
        ],
        range: 'lastYear',
      }).expect(200);
      expectContract(res, 'aggregateSiteEvents');
      expect(res.body.columns).toEqual([
        { column: 'visitorClaim', claim: "role'--", values: ["admin' OR '1'='1"] },
        { column: 'eventsCount', values: [1] },
      ]);
      const none = await aggregate(org, siteId, { where: [{ column: 'urlPath', values: ["' OR '1'='1"] }], range: 'lastYear' }).expect(200);
      expect(none.body.columns).toEqual([{ column: 'eventsCount', values: [0] }]);
      expect(await stored(siteId)).toBe(1);
    });

    it('reads rollups for whole hours and minutes, with the same answers as raw events', async () => {
      const { org, siteId } = await withSite();
      const caller: Membership = await membershipOf(t, org, org.admin);
      // 400 events over the last 10 days, at odd minutes, on 4 paths, 3 referrers, 2 types.
      const now = Date.now();
      const events: Record<string, unknown>[] = [];
      const at: Date[] = [];
      for (let i = 0; i < 400; i++) {
        events.push(
          siteEvent({
            path: `/p${i % 4}`,
            type: i % 5 === 0 ? 'search_open' : 'page_view',
            referrer: [null, 'https://a.example/', 'https://b.example/x'][i % 3],
            page: i % 4 === 3 ? null : `page-${i % 4}`,
            visitorId: `v${i % 11}`,
          }),
        );
        at.push(new Date(now - ((i * 2_160_017) % (10 * 86_400_000))));
      }
      await record(siteId, events.slice(0, 300), at.slice(0, 300));
      await t.app.get(InsightsFoldService).fold();
      // The last 100 are not folded yet (unless the timer folds them meanwhile): read raw, same answers.
      await record(siteId, events.slice(300), at.slice(300));
      const range = { from: new Date(now - 9 * 86_400_000 - 17 * 60_000).toISOString(), to: new Date(now - 3 * 86_400_000 + 29 * 60_000).toISOString() };
      const queries = [
        { select: [{ column: 'eventsCount' }], groupBy: [{ column: 'datetime', interval: 'hour' }], range },
        { groupBy: [{ column: 'datetime', interval: 'day' }, { column: 'eventType' }], range },
        { groupBy: [{ column: 'urlPath' }, { column: 'referrerDomain' }], where: [{ column: 'eventType', values: ['page_view'] }], range },
        { groupBy: [{ column: 'page' }, { column: 'hourOfDay' }], order: { by: { column: 'eventsCount' }, direction: 'desc' }, range },
        { groupBy: [{ column: 'dayOfWeek' }], range: 'lastYear' },
      ];
      const service = t.app.get(InsightsService);
      let fromRollups = 0;
      for (const query of queries) {
        const compiled = compileAggregate({ ...query, limit: 1000 }, { siteId, now: new Date() });
        if (compiled.source !== 'raw') fromRollups++;
        const viaRoute = await aggregate(org, siteId, query).expect(200);
        expectContract(viaRoute, 'aggregateSiteEvents');
        const raw = await service.aggregate(caller, siteId, { ...query, limit: 1000 }, { useRollups: false });
        expect(viaRoute.body.columns).toEqual(raw);
        expect(raw[raw.length - 1].values.length).toBeGreaterThan(0);
      }
      expect(fromRollups).toBe(queries.length);
      await t.app.get(InsightsFoldService).fold();
      const totals = await t.dataSource.query(`SELECT sum(events)::int AS n FROM insights_hourly_totals WHERE site_id = $1`, [siteId]);
      expect(totals[0].n).toBe(400);
    });
  });

  describe('GET …/insights/visitor-segments (listSiteVisitorSegments)', () => {
    itChecksAccess(() => t, {
      given: (org) => createSite(t, org),
      request: (org, siteId) => t.http.get(`${base(org.id, siteId)}/visitor-segments`),
      anonymous: 401,
      outsider: {
        status: 404,
        title: 'answers 404 to another organization and for a site of another organization',
        also: async (_org, siteId) => {
          const other = await createOrganization(t);
          expectErrorEnvelope(await t.http.get(`${base(other.id, siteId)}/visitor-segments`).set(...other.admin.auth), 404);
        },
      },
      member: { role: null, status: 403, title: 'refuses guests with 403' },
    });

    it('lists segments by claims with their events, visitors and sessions, page by page', async () => {
      const { org, siteId } = await withSite();
      await track(org, siteId, [
        siteEvent({ claims: { plan: 'pro', role: 'admin' }, visitorId: 'a', sessionId: 'a1' }),
        siteEvent({ claims: { role: 'admin', plan: 'pro' }, visitorId: 'a', sessionId: 'a2' }),
        siteEvent({ claims: { plan: 'pro', role: 'admin' }, visitorId: 'b', sessionId: 'b1' }),
        siteEvent({ claims: { plan: 'free' }, visitorId: 'c', sessionId: 'c1' }),
        siteEvent({ visitorId: 'd', sessionId: 'd1' }),
      ]).expect(204);
      const seen: unknown[] = [];
      let page: string | undefined;
      do {
        const res = await t.http
          .get(`${base(org.id, siteId)}/visitor-segments`)
          .query({ limit: 1, ...(page ? { page } : {}) })
          .set(...org.admin.auth)
          .expect(200);
        // The public PlainObject cannot validate a scalar claim: a string matches both its schema-less
        // object branch and its string branch of a `oneOf`. So the envelope and each item are checked
        // with the claims set aside, and the claims are compared below.
        expectPublicSchema({ ...res.body, items: [] }, 'List');
        for (const item of res.body.items) expectPublicSchema({ ...item, claims: {} }, 'SiteInsightsVisitorSegment');
        expect(res.body.count).toBe(2);
        seen.push(...res.body.items);
        page = res.body.next?.page;
      } while (page);
      expect(seen).toHaveLength(2);
      expect(seen).toEqual(
        expect.arrayContaining([
          { title: 'plan: pro, role: admin', claims: { plan: 'pro', role: 'admin' }, events: 3, visitors: 2, sessions: 3 },
          { title: 'plan: free', claims: { plan: 'free' }, events: 1, visitors: 1, sessions: 1 },
        ]),
      );
      expectErrorEnvelope(
        await t.http
          .get(`${base(org.id, siteId)}/visitor-segments`)
          .query({ limit: 1001 })
          .set(...org.admin.auth),
        400,
        /limit/,
      );
    });
  });

  describe('time partitions', () => {
    it('creates monthly partitions ahead and drops those past the retention with their rollups', async () => {
      const partitions = async (): Promise<string[]> =>
        (
          await t.dataSource.query(
            `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'insights_events'::regclass ORDER BY 1`,
          )
        ).map((row: { relname: string }) => row.relname);
      const service = t.app.get(InsightsPartitionsService);
      const now = new Date();
      const month = (offset: number) => {
        const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
        return `insights_events_${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
      };
      await service.ensureAhead(now);
      expect(await partitions()).toEqual(expect.arrayContaining([month(0), month(1), month(2), month(3)]));

      // An old month with an event (and its rollup rows), then a retention cutoff just after that month.
      const { siteId } = await withSite();
      const repository = t.app.get(InsightsRepository);
      await t.dataSource.transaction((em) => repository.ensurePartitions(em, new Date('2001-01-10T00:00:00Z'), new Date('2001-02-01T00:00:00Z')));
      await record(siteId, [siteEvent()], [new Date('2001-01-15T10:30:00Z')]);
      await t.app.get(InsightsFoldService).fold();
      expect(await partitions()).toContain('insights_events_200101');
      const minutes = async () => (await t.dataSource.query(`SELECT count(*)::int AS n FROM insights_minute_pages WHERE site_id = $1`, [siteId]))[0].n;
      expect(await minutes()).toBe(1);
      const until = await t.dataSource.transaction((em) => repository.dropPartitionsBefore(em, new Date('2001-02-05T00:00:00Z')));
      expect(until).toEqual(new Date('2001-02-01T00:00:00Z'));
      expect(await partitions()).not.toContain('insights_events_200101');
      expect(await partitions()).toContain(month(0));
      expect(await stored(siteId)).toBe(0);
      const rollups = await t.dataSource.query(`SELECT count(*)::int AS n FROM insights_hourly_pages WHERE site_id = $1`, [siteId]);
      expect(rollups[0].n).toBe(0);
      expect(await minutes()).toBe(0);
    });
  });
});

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
