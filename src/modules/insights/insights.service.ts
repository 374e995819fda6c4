import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor';
import type { ListQueryDto } from '../../common/pagination/list-query.dto';
import type { Page } from '../../common/pagination/paginate';
import type { Membership } from '../organizations/membership.entity';
import type { Site } from '../sites/site.entity';
import type { AggregateEventsDto } from './dto/aggregate-events.dto';
import type { TrackEventsBody } from './dto/track-events.dto';
import { pageViewsOf, parseEvents } from './insights-event.parser';
import { compileAggregate, CompiledAggregate } from './insights-query.compiler';
import { insightsError } from './insights.errors';
import type { AggregateColumn, InsightEventRow, VisitorSegmentRow } from './insights.read-model';
import { InsightsRepository } from './insights.repository';
import { SITE_VIEWS, type SiteViewsListener } from './site-views.port';

const SEGMENTS_LIST = 'insights-visitor-segments:claims:asc';
const siteNotFound = () => insightsError('insights.site_not_found', 'Site not found');

/** Site insights (section 4.19): ingest, aggregate, visitor segments. */
@Injectable()
export class InsightsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: InsightsRepository,
    @Optional() @Inject(SITE_VIEWS) private readonly siteViews?: SiteViewsListener,
  ) {}

  /**
   * Checks and stores a batch; nothing is stored when one event is refused. Returns the stored rows.
   * The site check rides in the insert itself (one round trip); an unknown site still answers 404 before
   * any refusal of the events, as every route checks its resource first.
   */
  async track(caller: Membership, siteId: string, body: TrackEventsBody, now = new Date()): Promise<InsightEventRow[]> {
    let rows: InsightEventRow[];
    try {
      rows = parseEvents(body.events, now);
    } catch (refusal) {
      await this.site(caller, siteId);
      throw refusal;
    }
    const views = pageViewsOf(rows);
    const site = { id: siteId, organizationId: caller.organizationId };
    const em = this.dataSource.manager;
    if (rows.length === 0) {
      await this.site(caller, siteId);
      return rows;
    }
    if (views.length === 0 || !this.siteViews) {
      if (!(await this.repository.insertBatchChecked(em, site.organizationId, site.id, rows))) throw siteNotFound();
      return rows;
    }
    // One round trip when nobody listens to the site's page views (the usual case): the statement stores the
    // batch only if no installation covers the site, in its own snapshot.
    const stored = await this.repository.insertBatchUnheard(em, site.organizationId, site.id, rows, this.siteViews.listenedSql('$1', '$3'));
    if (!stored.found) throw siteNotFound();
    if (!stored.heard) return rows;
    // Someone listens: the page views' `site_view` deliveries are queued with the batch, or not at all.
    const listeners = await this.siteViews.listeners(site);
    await this.dataSource.transaction(async (transaction) => {
      if (!(await this.repository.insertBatchChecked(transaction, site.organizationId, site.id, rows))) throw siteNotFound();
      await this.siteViews?.viewed(site, views, transaction, listeners);
    });
    return rows;
  }

  /** Stores already-checked rows (any time): the ingest route, and tests or tools loading history. */
  async record(siteId: string, rows: InsightEventRow[]): Promise<void> {
    await this.repository.insertBatch(this.dataSource.manager, siteId, rows);
  }

  async aggregate(caller: Membership, siteId: string, dto: AggregateEventsDto, options: { now?: Date; useRollups?: boolean } = {}): Promise<AggregateColumn[]> {
    const site = await this.site(caller, siteId);
    return this.run((watermark) => compileAggregate(dto, { siteId: site.id, now: options.now ?? new Date(), useRollups: options.useRollups, watermark }));
  }

  /**
   * Compiles (with the fold's watermark) and runs a query, and turns its rows into answer columns. The
   * watermark and the rollups are read in one snapshot (REPEATABLE READ), so each event is counted once:
   * in a rollup if its transaction is below the watermark, raw otherwise.
   */
  async run(compile: (watermark: string) => CompiledAggregate): Promise<AggregateColumn[]> {
    const { query, rows } = await this.dataSource.transaction('REPEATABLE READ', async (em) => {
      const compiled = compile(await this.repository.watermark(em));
      return { query: compiled, rows: await this.repository.aggregate(em, compiled) };
    });
    return query.outputs.map((output) => ({
      column: output.column,
      ...(output.claim !== undefined ? { claim: output.claim } : {}),
      values: rows.map((row) => output.decode(output.aliases.map((alias) => row[alias]))),
    }));
  }

  async visitorSegments(caller: Membership, siteId: string, query: ListQueryDto): Promise<Page<VisitorSegmentRow>> {
    const site = await this.site(caller, siteId);
    const after = query.page ? String(decodeCursor(query.page, SEGMENTS_LIST, 1)[0]) : undefined;
    const em = this.dataSource.manager;
    const [fetched, count] = await Promise.all([
      this.repository.visitorSegments(em, site.id, after, query.limit + 1),
      this.repository.countVisitorSegments(em, site.id),
    ]);
    const items = fetched.slice(0, query.limit);
    const page: Page<VisitorSegmentRow> = { items, count };
    if (fetched.length > query.limit) page.next = { page: encodeCursor(SEGMENTS_LIST, [items[items.length - 1].key]) };
    return page;
  }

  private async site(caller: Membership, siteId: string): Promise<Site> {
    const site = await this.repository.findSite(this.dataSource.manager, caller.organizationId, siteId);
    if (!site) throw siteNotFound();
    return site;
  }
}
