/**
 * How a module declares a background job: one constant per job, next to the code that owns the work.
 * `defineJob<Payload>()` ties the payload type to the queue name, so `JobsService.send` and the
 * handler given to `JobsService.register` agree on it at compile time.
 */
export interface JobSpec {
  /** Queue name, `<module>.<job>` (e.g. `spaces.purge-deleted`). Also names the schedule and the dead-letter queue. */
  name: string;
  /** Retries after the first attempt; a job that fails `1 + retryLimit` times moves to the dead-letter queue. */
  retryLimit: number;
  /** Seconds before the first retry (whole seconds, pg-boss's unit). */
  retryDelaySeconds: number;
  /** Doubles the delay on every retry, with jitter (pg-boss: delay · 2^n / 2 · (1 + random)). */
  retryBackoff: boolean;
  /** An attempt still running after this long counts as failed (and is retried). Default 15 minutes. */
  expireInSeconds?: number;
  /**
   * `standard` (default): every job sent runs. `stately`: at most one job waiting and one running,
   * a send while one waits is dropped (for idempotent sweeps such as a purge).
   */
  policy?: 'standard' | 'stately';
  /** Cron expression (UTC) on which the job is sent with an empty payload; pg-boss fires it once across replicas. */
  cron?: string;
  /** Attempts run at once by one replica; default JOBS_CONCURRENCY. */
  concurrency?: number;
}

export interface JobDefinition<Payload extends object> extends Readonly<JobSpec> {
  /** Where failed jobs go once their retries are exhausted. */
  readonly deadLetter: string;
  /** Phantom member carrying the payload type; never set. */
  readonly __payload?: Payload;
}

/** What a handler learns about the attempt it runs. */
export interface JobContext {
  id: string;
  name: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** Attempts allowed in all (1 + retryLimit). */
  maxAttempts: number;
}

export type JobHandler<Payload extends object> = (payload: Payload, context: JobContext) => Promise<void>;

export function deadLetterQueueOf(name: string): string {
  return `${name}.dead-letter`;
}

export function defineJob<Payload extends object>(spec: JobSpec): JobDefinition<Payload> {
  if (!/^[a-z0-9][a-z0-9.-]{0,99}$/.test(spec.name)) throw new Error(`Invalid job name ${JSON.stringify(spec.name)}: lower case, digits, dots and hyphens`);
  if (!Number.isInteger(spec.retryLimit) || spec.retryLimit < 0) throw new Error(`Job ${spec.name}: retryLimit must be an integer >= 0`);
  if (!Number.isInteger(spec.retryDelaySeconds) || spec.retryDelaySeconds < 0) throw new Error(`Job ${spec.name}: retryDelaySeconds must be an integer >= 0`);
  return Object.freeze({ ...spec, deadLetter: deadLetterQueueOf(spec.name) });
}

/**
 * A housekeeping job on a cron (purges, partition upkeep): sent by pg-boss's cron once across
 * replicas, run by one worker at a time; `stately`, so one waiting while another is due is not queued
 * twice; a failure is retried three times with backoff from a minute.
 */
export function defineMaintenanceJob(name: string, cron: string, expireInSeconds = 30 * 60): JobDefinition<Record<string, never>> {
  return defineJob({ name, cron, policy: 'stately', retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true, expireInSeconds, concurrency: 1 });
}
