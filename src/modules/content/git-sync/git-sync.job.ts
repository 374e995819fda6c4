import { defineJob } from '../../../jobs/job-definition';

export interface GitSyncPayload {
  direction: 'export' | 'import';
  spaceId: string;
  /** Who asked: the job acts with their rights, checked again when it runs. */
  userId: string;
  /** The repository, resolved under GIT_SYNC_ROOT when the request was checked. */
  path: string;
  ref: string;
  /** The URL as the request gave it (an import writes it into the revision's `git`). */
  url: string;
  commitMessage?: string;
}

/**
 * One Git Sync operation. Both directions are idempotent (an export commits the same tree again, an
 * import writes the same content again), so a failed attempt is retried; a repository or layout that
 * cannot be read is not (the handler ends it). One at a time per replica: each holds a space's
 * content in memory.
 */
export const GIT_SYNC = defineJob<GitSyncPayload>({
  name: 'content.git-sync',
  retryLimit: 2,
  retryDelaySeconds: 5,
  retryBackoff: true,
  expireInSeconds: 30 * 60,
  concurrency: 1,
});
