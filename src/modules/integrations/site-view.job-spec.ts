import { defineJob } from '../../jobs/job-definition';

/** One ingest batch's `site_view` payloads (without `eventId`) for one installation. */
export interface SiteViewsBatch {
  integrationId: string;
  installationId: string;
  views: (Record<string, unknown> & { type: string })[];
}

/**
 * Fans a batch of page views out into one stored `site_view` event (and its delivery job) per view.
 * Queued once per ingest batch and installation, in the ingest transaction; the fan-out is one
 * transaction too, so a retry never doubles an event.
 */
export const FAN_OUT_SITE_VIEWS = defineJob<SiteViewsBatch>({
  name: 'integrations.site-views',
  retryLimit: 4,
  retryDelaySeconds: 5,
  retryBackoff: true,
  expireInSeconds: 300,
});
