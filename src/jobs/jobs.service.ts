import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import PgBoss from 'pg-boss';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS, withAdvisoryLock } from '../database/advisory-lock';
import { currentWriteKeys, ReadReplicas } from '../database/read-replicas';
import { JobContext, JobDefinition, JobHandler } from './job-definition';
import { JOBS_SCHEMA } from './jobs.constants';
import { JobsRepository } from './jobs.repository';
import { PoolDb, poolDb, transactionDb } from './pg-boss-db';

export interface SendJobOptions {
  /** Not before this instant. */
  startAfter?: Date;
  /** Send inside this transaction: the job exists only if the transaction commits. */
  manager?: EntityManager;
}

/** What this replica has seen since it started; monotonic, for counters. */
export interface JobCounters {
  completed: number;
  /** Failed attempts, retried or not. */
  failed: number;
  /** Jobs whose last attempt failed, moved to the dead-letter queue. */
  deadLettered: number;
}

export interface JobQueueStats {
  name: string;
  deadLetter: string;
  /** Waiting to run: new, or waiting for a retry (all replicas). */
  queued: number;
  /** Running now (all replicas). */
  active: number;
  /** Of those waiting, how many wait for a retry. */
  retrying: number;
  /** Jobs in the dead-letter queue (all replicas). */
  deadLettered: number;
  /** Attempts run by this replica since it started. */
  processed: JobCounters;
}

interface Registration {
  definition: JobDefinition<object>;
  handler: JobHandler<object>;
  workers: string[];
}

/**
 * The durable job queue (pg-boss on the application's database). Modules declare a job with
 * `defineJob`, register its handler in `onModuleInit`, and send it with `send`; see
 * docs/architecture.md, "Background jobs".
 */
@Injectable()
export class JobsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly boss: PgBoss;
  private readonly db: PoolDb;
  private readonly registrations = new Map<string, Registration>();
  private readonly counters = new Map<string, JobCounters>();
  private started = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly repository: JobsRepository,
    @Optional() private readonly replicas?: ReadReplicas,
  ) {
    const enabled = config.jobs.enabled;
    this.db = poolDb(dataSource);
    this.boss = new PgBoss({
      db: this.db,
      schema: JOBS_SCHEMA,
      // The schema comes from a TypeORM migration; start() only checks its version.
      migrate: false,
      // Maintenance (expire, archive, delete) and the cron clock run on worker replicas only;
      // pg-boss lets one replica at a time do each round.
      supervise: enabled,
      schedule: enabled,
      pollingIntervalSeconds: config.jobs.pollIntervalMs / 1000,
    });
    this.boss.on('error', (error: Error & { queue?: string }) => this.logger.error({ msg: 'job queue error', queue: error.queue, error: error.message }));
  }

  /**
   * Declares the handler of a job; call it from the owning module's `onModuleInit`. Every replica
   * registers every job (so each can send it); only replicas with JOBS_ENABLED run the handler.
   */
  async register<Payload extends object>(definition: JobDefinition<Payload>, handler: JobHandler<Payload>): Promise<void> {
    if (this.registrations.has(definition.name)) throw new Error(`Job ${definition.name} is registered twice`);
    const registration: Registration = { definition, handler: handler as JobHandler<object>, workers: [] };
    this.registrations.set(definition.name, registration);
    this.counters.set(definition.name, { completed: 0, failed: 0, deadLettered: 0 });
    // Registered after start-up (tests, lazily loaded modules): activate it now.
    if (this.started) {
      await withAdvisoryLock(this.dataSource, ADVISORY_LOCKS.jobQueues, () => this.ensureQueue(definition));
      await this.startWorkers(registration);
    }
  }

  /** Sends a job; resolves to its id, or null when the queue's policy dropped it (a `stately` queue already holding one). */
  async send<Payload extends object>(definition: JobDefinition<Payload>, payload: Payload, options: SendJobOptions = {}): Promise<string | null> {
    const registration = this.registrations.get(definition.name);
    if (!registration) throw new Error(`Job ${definition.name} has no registered handler`);
    if (!this.started) throw new Error(`Job ${definition.name} sent before the job queue started`);
    const id = await this.boss.send(definition.name, this.withWriters(payload), {
      startAfter: options.startAfter,
      db: options.manager ? transactionDb(options.manager) : undefined,
    });
    // A local worker picks it up now instead of at its next poll (after commit, for a transactional send, it is the next poll).
    if (id && !options.manager) for (const worker of registration.workers) this.boss.notifyWorker(worker);
    return id;
  }

  /**
   * With read replicas: the payload plus whose writes the job makes, the keys of the request sending it
   * (its token, the space its path names) and the space the payload names, recorded once it has run.
   */
  private withWriters(payload: object): object {
    if (!this.replicas) return payload;
    const keys = new Set(currentWriteKeys());
    const spaceId = (payload as { spaceId?: unknown }).spaceId;
    if (typeof spaceId === 'string') keys.add(`space:${spaceId}`);
    return keys.size ? { ...payload, [WRITERS]: [...keys] } : payload;
  }

  /**
   * Wakes this replica's idle workers of a job so they fetch now instead of at their next poll: for
   * a job sent in a transaction (`send` with `manager`), call it once the transaction has committed.
   */
  wake(definition: JobDefinition<object>): void {
    for (const worker of this.registrations.get(definition.name)?.workers ?? []) this.boss.notifyWorker(worker);
  }

  /** Queue depth and failures of every registered job, read from PostgreSQL, plus this replica's counters. */
  async stats(): Promise<JobQueueStats[]> {
    const registrations = [...this.registrations.values()];
    const names = registrations.flatMap(({ definition }) => [definition.name, definition.deadLetter]);
    const rows = await this.repository.countByState(names);
    const count = (name: string, states: string[]) =>
      rows.filter((row) => row.name === name && states.includes(row.state)).reduce((sum, row) => sum + row.count, 0);
    return registrations.map(({ definition }) => ({
      name: definition.name,
      deadLetter: definition.deadLetter,
      queued: count(definition.name, ['created', 'retry']),
      active: count(definition.name, ['active']),
      retrying: count(definition.name, ['retry']),
      deadLettered: count(definition.deadLetter, ['created', 'retry', 'active']),
      processed: { ...(this.counters.get(definition.name) as JobCounters) },
    }));
  }

  /** This replica's counters per job since it started (no database read: for metrics counters). */
  processed(): { name: string; counters: JobCounters }[] {
    return [...this.counters.entries()].map(([name, counters]) => ({ name, counters: { ...counters } }));
  }

  /** State of one job (tests and operators); null once pg-boss has archived it. */
  async getJob(definition: JobDefinition<object>, id: string): Promise<PgBoss.JobWithMetadata<unknown> | null> {
    return this.boss.getJobById(definition.name, id);
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      // One replica at a time starts pg-boss (its cron clock creates a queue of its own) and creates and
      // updates the queues: pg-boss's createQueue adds a partition to its job table, and two replicas
      // doing so at the same moment deadlock (40P01). Once the first has made them, the others' calls
      // change nothing and take milliseconds.
      await withAdvisoryLock(this.dataSource, ADVISORY_LOCKS.jobQueues, async () => {
        await this.startBoss();
        for (const { definition } of this.registrations.values()) await this.ensureQueue(definition);
      });
      for (const registration of this.registrations.values()) await this.startWorkers(registration);
    } catch (error) {
      if (this.started) await this.stop(1000);
      throw error;
    }
    this.logger.log({ msg: 'job queue started', workers: this.config.jobs.enabled, queues: [...this.registrations.keys()] });
  }

  private async startBoss(): Promise<void> {
    try {
      await this.boss.start();
    } catch (error) {
      const message = (error as Error).message;
      if (/not installed|requires migrations/.test(message)) {
        throw new Error(`The job queue's tables (schema ${JOBS_SCHEMA}) are missing or out of date (${message}): run the migrations (npm run migration:run)`, {
          cause: error,
        });
      }
      throw error;
    }
    this.started = true;
  }

  /**
   * Before any `onApplicationShutdown` (TypeORM closes the pool there): stop fetching, let running
   * jobs finish within the shutdown timeout; a job still running then is failed, so it is retried.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.started) await this.stop(Math.max(1000, this.config.shutdownTimeoutMs - 2000));
  }

  private async stop(timeout: number): Promise<void> {
    this.started = false;
    await this.boss.stop({ graceful: true, wait: true, close: false, timeout });
    this.db.abandonIfClosed();
  }

  /**
   * Creates the job's queue and dead-letter queue, brings their options and schedule up to date.
   * Idempotent; call it under the start-up advisory lock (replicas starting together).
   */
  private async ensureQueue(definition: JobDefinition<object>): Promise<void> {
    const options: PgBoss.Queue = {
      name: definition.name,
      policy: definition.policy ?? 'standard',
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: definition.retryBackoff,
      deadLetter: definition.deadLetter,
      // pg-boss refuses the key when present but undefined.
      ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
    };
    await this.boss.createQueue(definition.deadLetter, { name: definition.deadLetter });
    await this.boss.createQueue(definition.name, options);
    await this.boss.updateQueue(definition.name, options);
    if (definition.cron) await this.boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' });
    else await this.boss.unschedule(definition.name);
  }

  /** Starts this replica's workers of a job (none unless JOBS_ENABLED). */
  private async startWorkers({ definition, handler, workers }: Registration): Promise<void> {
    if (!this.config.jobs.enabled) return;
    // `concurrency` pg-boss workers, one job each. A pg-boss 10 worker waits a full poll interval
    // after every job, even with more waiting; waking it after each job keeps a backlog draining
    // at full speed, and an empty fetch puts it back to polling.
    const concurrency = definition.concurrency ?? this.config.jobs.concurrency;
    for (let i = 0; i < concurrency; i++) {
      const worker: { id?: string } = {};
      worker.id = await this.boss.work<object>(definition.name, { batchSize: 1, includeMetadata: true }, async ([job]) => {
        try {
          await this.run(definition, handler, job);
        } finally {
          if (worker.id) this.boss.notifyWorker(worker.id);
        }
      });
      workers.push(worker.id);
    }
  }

  /** One attempt: the handler under the job's time limit, one log line when it fails (never the payload). */
  private async run(definition: JobDefinition<object>, handler: JobHandler<object>, job: PgBoss.JobWithMetadata<object>): Promise<void> {
    const context: JobContext = { id: job.id, name: job.name, attempt: job.retryCount + 1, maxAttempts: job.retryLimit + 1 };
    const counters = this.counters.get(definition.name) as JobCounters;
    const started = Date.now();
    const { [WRITERS]: writers, ...payload } = (job.data ?? {}) as { [WRITERS]?: string[] };
    try {
      await withTimeout(handler(writers ? payload : job.data, context), job.expireInSeconds * 1000);
      counters.completed++;
      this.logger.debug({ msg: 'job completed', job: job.name, jobId: job.id, attempt: context.attempt, ms: Date.now() - started });
    } catch (error) {
      counters.failed++;
      const last = context.attempt >= context.maxAttempts;
      const line = {
        job: job.name,
        jobId: job.id,
        attempt: context.attempt,
        maxAttempts: context.maxAttempts,
        ms: Date.now() - started,
        error: (error as Error)?.message ?? String(error),
      };
      if (last) {
        counters.deadLettered++;
        this.logger.error({ msg: 'job failed; moved to the dead-letter queue', ...line, deadLetter: job.deadLetter });
      } else {
        this.logger.warn({ msg: 'job failed; will retry', ...line });
      }
      throw error;
    } finally {
      // Succeeded or not (an attempt may have committed before failing): its writes are waited for.
      if (writers?.length) await this.replicas?.recordWrite(writers);
    }
  }
}

/** The payload's field naming whose writes the job makes (read-your-writes keys); handlers never see it. */
const WRITERS = '__quireWriters';

/**
 * pg-boss fails an attempt that outlives `expireInSeconds` with the same timer; ours is started
 * first, so it fires first and the failure is logged like any other.
 */
function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), Math.max(1000, ms));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
