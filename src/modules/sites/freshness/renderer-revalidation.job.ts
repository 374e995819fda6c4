import { defineJob } from '../../../jobs/job-definition';

/**
 * Tells GitBook's renderer which of its cache tags to drop (`space:<id>`, `site:<id>`: the tags it
 * gives its cached reads of Quire). Sent in the transaction of the change, so it exists iff the change
 * commits; only when RENDERER_URL and RENDERER_SECRET are set.
 */
export const REVALIDATE_RENDERER = defineJob<{ tags: string[] }>({
  name: 'sites.revalidate-renderer',
  retryLimit: 5,
  retryDelaySeconds: 5,
  retryBackoff: true,
  expireInSeconds: 60,
});
