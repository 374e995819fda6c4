import { defineJob } from '../../jobs/job-definition';

/** Delivers one stored event to its integration's script; retried with backoff, then dead-lettered. */
export const DELIVER_EVENT = defineJob<{ eventId: string }>({
  name: 'integrations.deliver-event',
  retryLimit: 4,
  retryDelaySeconds: 5,
  retryBackoff: true,
  // A call ends within INTEGRATION_SCRIPT_TIMEOUT_MS (at most 60 s); an attempt lasting longer died with its replica.
  expireInSeconds: 120,
});
