import type { EntityManager } from 'typeorm';
import type { InsightEventRow } from './insights.read-model';

/**
 * Who hears of a site's page views (integrations deliver `site_view` to the installations on the
 * site). Called in the transaction that stores the batch, so what it queues commits with the events.
 * The integrations module provides it; insights cannot import integrations, hence the token.
 */
export const SITE_VIEWS = Symbol('SITE_VIEWS');

export interface SiteViewsListener {
  /**
   * Who listens to the site's page views now (read before the batch's transaction; none: the batch is
   * stored alone, in one statement). An installation made meanwhile hears from the next batch on.
   */
  listeners(site: { id: string; organizationId: string }): Promise<unknown[]>;
  /**
   * An SQL condition, true when someone listens to the site's page views (`site` and `organization` are
   * placeholders of the statement): the ingest statement stores a batch only when it is false, so a site
   * nobody listens to takes one round trip per batch. The same answer as `listeners`, in the statement's snapshot.
   */
  listenedSql(site: string, organization: string): string;
  /** Queues the views for `listeners` (what `listeners` answered), in the transaction storing the batch. */
  viewed(site: { id: string; organizationId: string }, views: InsightEventRow[], em: EntityManager, listeners: unknown[]): Promise<void>;
}
