import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { JobQueue1800000050000 } from '../../migrations/1800000050000-job-queue';
import { createApp } from '../../src/app.factory';
import { createLogger } from '../../src/common/logging/logger';
import { loadConfig } from '../../src/config/app-config';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { defineJob, JobDefinition, JobHandler } from '../../src/jobs/job-definition';
import { JobsService } from '../../src/jobs/jobs.service';
import { TEST_DATABASE_URL } from '../support/database';
import { createTestApp, TestApp } from '../support/test-app';

/** A queue of its own per test, so tests never see each other's jobs. */
function testJob<Payload extends object>(overrides: Partial<Parameters<typeof defineJob>[0]> = {}): JobDefinition<Payload> {
  return defineJob<Payload>({ name: `test.job-${randomBytes(4).toString('hex')}`, retryLimit: 0, retryDelaySeconds: 0, retryBackoff: false, ...overrides });
}

/** Polls PostgreSQL (or any condition) until it holds; the bound only stops a broken test. */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface JobRow {
  state: string;
  retry_count: number;
  /** Seconds between the start of the failed attempt and the earliest retry. */
  delay: number;
}

describe('job queue (pg-boss)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ JOBS_ENABLED: 'true' })));
  afterAll(() => t.close());

  const jobRow = async (id: string): Promise<JobRow | undefined> =>
    (
      await t.dataSource.query(
        `SELECT state::text AS state, retry_count, extract(epoch FROM start_after - started_on)::float AS delay FROM pgboss.job WHERE id = $1`,
        [id],
      )
    )[0];
  const stateOf = async (id: string) => (await jobRow(id))?.state;

  it('runs a sent job once, with its payload', async () => {
    const job = testJob<{ n: number }>();
    const calls: { n: number; attempt: number }[] = [];
    const jobs = t.app.get(JobsService);
    await jobs.register(job, async (payload, context) => void calls.push({ n: payload.n, attempt: context.attempt }));

    const id = (await jobs.send(job, { n: 7 })) as string;
    expect(id).toEqual(expect.any(String));
    await waitFor(
      () => stateOf(id),
      (state) => state === 'completed',
      'the job to complete',
    );
    expect(calls).toEqual([{ n: 7, attempt: 1 }]);
    const [stats] = (await jobs.stats()).filter((queue) => queue.name === job.name);
    expect(stats).toMatchObject({ queued: 0, active: 0, deadLettered: 0, processed: { completed: 1, failed: 0, deadLettered: 0 } });
  });

  it('shows queue depth and outcomes on /metrics', async () => {
    const token = 'metrics-token-jobs-0123456789';
    const app = await createTestApp({ METRICS_TOKEN: token, JOBS_ENABLED: 'true' });
    try {
      const jobs = app.app.get(JobsService);
      const ok = testJob<{ n: number }>();
      const broken = testJob<{ n: number }>();
      await jobs.register(ok, async () => undefined);
      await jobs.register(broken, async () => {
        throw new Error('broken on purpose');
      });
      const okId = (await jobs.send(ok, { n: 1 })) as string;
      const brokenId = (await jobs.send(broken, { n: 2 })) as string;
      await waitFor(
        () => stateOf(okId),
        (state) => state === 'completed',
        'the good job',
      );
      await waitFor(
        () => stateOf(brokenId),
        (state) => state === 'failed',
        'the broken job',
      );
      await waitFor(
        async () => (await jobs.stats()).find((queue) => queue.name === broken.name)?.deadLettered,
        (count) => count === 1,
        'the dead letter',
      );

      const scrape = (await app.http.get('/metrics').set('Authorization', `Bearer ${token}`).expect(200)).text;
      const line = (name: string, labels: string) => new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(scrape)?.[1];
      expect(line('quire_jobs_processed_total', `queue="${ok.name}",outcome="completed"`)).toBe('1');
      expect(line('quire_jobs_processed_total', `queue="${broken.name}",outcome="failed"`)).toBe('1');
      expect(line('quire_jobs_processed_total', `queue="${broken.name}",outcome="dead_lettered"`)).toBe('1');
      expect(line('quire_jobs', `queue="${broken.name}",state="dead_lettered"`)).toBe('1');
      expect(line('quire_jobs', `queue="${ok.name}",state="queued"`)).toBe('0');
      expect(line('quire_jobs', `queue="spaces.purge-deleted",state="queued"`)).toMatch(/^\d+$/);
    } finally {
      await app.close();
    }
  });

  it('retries a failing job with growing delays, then moves it to the dead-letter queue, logging each failure without the payload', async () => {
    let logs = '';
    const destination = new Writable({ write: (chunk, _encoding, next) => ((logs += chunk.toString()), next()) });
    const app = await createTestApp({ LOG_LEVEL: 'info', JOBS_ENABLED: 'true' }, destination);
    try {
      const job = testJob<{ secret: string }>({ retryLimit: 2, retryDelaySeconds: 1, retryBackoff: true });
      const jobs = app.app.get(JobsService);
      let attempts = 0;
      await jobs.register(job, async () => {
        attempts++;
        throw new Error(`attempt ${attempts} broke`);
      });
      const id = (await jobs.send(job, { secret: 'payload-secret-4711' })) as string;

      // Backoff: delay · 2^n / 2 · (1 + random) seconds, so [1, 2) before the 1st retry and [2, 4) before the 2nd.
      const first = await waitFor(
        () => jobRow(id),
        (row) => row?.state === 'retry' && row.retry_count === 0,
        'the first failure',
      );
      expect(first?.delay).toBeGreaterThanOrEqual(0.9);
      expect(first?.delay).toBeLessThan(2.5);
      // Skip the wait rather than sleep through it: the delay was already measured.
      await t.dataSource.query('UPDATE pgboss.job SET start_after = now() WHERE id = $1', [id]);
      const second = await waitFor(
        () => jobRow(id),
        (row) => row?.state === 'retry' && row.retry_count === 1,
        'the second failure',
      );
      expect(second?.delay).toBeGreaterThanOrEqual(1.9);
      expect(second?.delay).toBeLessThan(4.5);
      await t.dataSource.query('UPDATE pgboss.job SET start_after = now() WHERE id = $1', [id]);
      await waitFor(
        () => stateOf(id),
        (state) => state === 'failed',
        'the job to fail for good',
      );
      expect(attempts).toBe(3);

      const dead: { data: unknown }[] = await t.dataSource.query('SELECT data FROM pgboss.job WHERE name = $1', [job.deadLetter]);
      expect(dead).toEqual([{ data: { secret: 'payload-secret-4711' } }]);
      const [stats] = (await jobs.stats()).filter((queue) => queue.name === job.name);
      expect(stats).toMatchObject({ queued: 0, active: 0, deadLettered: 1, processed: { completed: 0, failed: 3, deadLettered: 1 } });

      const lines = logs
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.job === job.name);
      expect(lines).toEqual([
        expect.objectContaining({ level: 40, msg: 'job failed; will retry', jobId: id, attempt: 1, maxAttempts: 3, error: 'attempt 1 broke' }),
        expect.objectContaining({ level: 40, msg: 'job failed; will retry', jobId: id, attempt: 2, maxAttempts: 3 }),
        expect.objectContaining({ level: 50, msg: 'job failed; moved to the dead-letter queue', jobId: id, attempt: 3, deadLetter: job.deadLetter }),
      ]);
      expect(logs).not.toContain('payload-secret-4711');
    } finally {
      await app.close();
    }
  });

  it('sends inside a transaction: a rolled-back send leaves no job', async () => {
    const job = testJob<{ n: number }>();
    const jobs = t.app.get(JobsService);
    await jobs.register(job, async () => undefined);
    let sent: string | null = null;
    await expect(
      t.dataSource.transaction(async (manager) => {
        sent = await jobs.send(job, { n: 1 }, { manager });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(sent).toEqual(expect.any(String));
    expect(await stateOf(sent as unknown as string)).toBeUndefined();

    const committed = await t.dataSource.transaction((manager) => jobs.send(job, { n: 2 }, { manager }));
    await waitFor(
      () => stateOf(committed as string),
      (state) => state === 'completed',
      'the committed job to run',
    );
  });

  it('lets two replicas share a queue: each job runs exactly once, and both replicas work', async () => {
    const second = await createTestApp({ JOBS_ENABLED: 'true' });
    try {
      // One worker per replica, and the first job waits until a second one runs: only the other replica can take it.
      const job = testJob<{ n: number }>({ concurrency: 1 });
      const calls: { n: number; replica: string }[] = [];
      let release: () => void = () => undefined;
      const bothRunning = new Promise<void>((resolve) => (release = resolve));
      const handlerOf =
        (replica: string): JobHandler<{ n: number }> =>
        async ({ n }) => {
          calls.push({ n, replica });
          if (calls.length === 2) release();
          if (calls.length <= 2) await bothRunning;
        };
      await t.app.get(JobsService).register(job, handlerOf('first'));
      await second.app.get(JobsService).register(job, handlerOf('second'));

      const total = 20;
      const ids: string[] = [];
      for (let n = 0; n < total; n++) ids.push((await t.app.get(JobsService).send(job, { n })) as string);
      const completed = async () =>
        (await t.dataSource.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`, [job.name]))[0].n;
      await waitFor(completed, (n) => n === total, `${total} jobs to complete`);

      expect(calls).toHaveLength(total);
      expect(new Set(calls.map((call) => call.n)).size).toBe(total);
      expect(new Set(calls.slice(0, 2).map((call) => call.replica))).toEqual(new Set(['first', 'second']));
    } finally {
      await second.close();
    }
  });

  it('keeps a job sent while no worker runs, and runs it once a worker starts (restart)', async () => {
    const job = testJob<{ n: number }>();
    const sender = await createTestApp({ JOBS_ENABLED: 'false' });
    let id: string;
    try {
      await sender.app.get(JobsService).register(job, async () => {
        throw new Error('a replica with JOBS_ENABLED=false never runs a job');
      });
      id = (await sender.app.get(JobsService).send(job, { n: 1 })) as string;
    } finally {
      await sender.close();
    }
    expect(await stateOf(id)).toBe('created');

    const calls: number[] = [];
    const worker = await createTestApp({ JOBS_ENABLED: 'true' });
    try {
      await worker.app.get(JobsService).register(job, async ({ n }) => void calls.push(n));
      await waitFor(
        () => stateOf(id),
        (state) => state === 'completed',
        'the job to run after the restart',
      );
      expect(calls).toEqual([1]);
    } finally {
      await worker.close();
    }
  });

  it('lets a running job finish before the app closes', async () => {
    const job = testJob<{ n: number }>();
    const app = await createTestApp({ JOBS_ENABLED: 'true' });
    const events: string[] = [];
    let closed: Promise<unknown> | undefined;
    try {
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      let finish: () => void = () => undefined;
      await app.app.get(JobsService).register(job, async () => {
        started();
        await new Promise<void>((resolve) => (finish = resolve));
        events.push('job finished');
      });
      const id = (await app.app.get(JobsService).send(job, { n: 1 })) as string;
      await running;
      closed = app.close().then(() => events.push('app closed'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      finish();
      await closed;
      expect(events).toEqual(['job finished', 'app closed']);
      await waitFor(
        () => stateOf(id),
        (state) => state === 'completed',
        'the job to be recorded as completed',
      );
    } finally {
      if (!closed) await app.close();
    }
  });

  describe('on a fresh database', () => {
    const name = `quire_jobs_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const server = () => new Client({ connectionString: process.env[TEST_DATABASE_URL] });
    let url: string;
    beforeAll(async () => {
      const admin = server();
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const parsed = new URL(process.env[TEST_DATABASE_URL] as string);
      parsed.pathname = `/${name}`;
      url = parsed.toString();
    });
    afterAll(async () => {
      const admin = server();
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });

    async function start(env: Record<string, string>) {
      const config = loadConfig({ LOG_LEVEL: 'silent', JOBS_POLL_INTERVAL_MS: '500', ...env });
      const app = await createApp(config, url, createLogger('silent'));
      try {
        await app.init();
      } catch (error) {
        await app.close();
        throw error;
      }
      return app;
    }

    it('refuses to start without the migration (MIGRATIONS_RUN=false), starts with it, and its down() drops the schema', async () => {
      await expect(start({ MIGRATIONS_RUN: 'false' })).rejects.toThrow(/job queue's tables \(schema pgboss\) are missing.*npm run migration:run/);

      const app = await start({ MIGRATIONS_RUN: 'true' });
      try {
        const job = testJob<{ n: number }>();
        const jobs = app.get(JobsService);
        await jobs.register(job, async () => undefined);
        const id = (await jobs.send(job, { n: 1 })) as string;
        await waitFor(
          async () => (await jobs.getJob(job, id))?.state,
          (state) => state === 'completed',
          'the job to run',
        );
      } finally {
        await app.close();
      }

      const dataSource = await createDataSource(url, 2).initialize();
      try {
        expect(await dataSource.query('SELECT version FROM pgboss.version')).toEqual([{ version: 24 }]);
        // The queue's migration is not the last one: run its down() and up() directly.
        const runner = dataSource.createQueryRunner();
        try {
          await new JobQueue1800000050000().down(runner);
          expect(await dataSource.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'pgboss'`)).toEqual([{ n: 0 }]);
          await new JobQueue1800000050000().up(runner);
          expect(await dataSource.query('SELECT version FROM pgboss.version')).toEqual([{ version: 24 }]);
        } finally {
          await runner.release();
        }
        expect(await runMigrations(dataSource)).toEqual([]);
      } finally {
        await dataSource.destroy();
      }
    });
  });
});
