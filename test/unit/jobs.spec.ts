import PgBoss from 'pg-boss';
import { loadConfig } from '../../src/config/app-config';
import { PG_BOSS_SCHEMA_V24 } from '../../migrations/1800000050000-job-queue';
import { deadLetterQueueOf, defineJob } from '../../src/jobs/job-definition';

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

describe('job queue', () => {
  it('creates the schema the installed pg-boss builds (else: write a migration from PgBoss.getMigrationPlans)', () => {
    expect(squash(PgBoss.getConstructionPlans('pgboss'))).toContain(squash(PG_BOSS_SCHEMA_V24));
    expect(squash(PG_BOSS_SCHEMA_V24)).toMatch(/^CREATE SCHEMA IF NOT EXISTS pgboss ;.*INSERT INTO pgboss\.version\(version\) VALUES \('24'\);$/);
  });

  it('gives every job a dead-letter queue named after it', () => {
    const job = defineJob<{ id: string }>({ name: 'spaces.purge-deleted', retryLimit: 3, retryDelaySeconds: 60, retryBackoff: true });
    expect(job.deadLetter).toBe('spaces.purge-deleted.dead-letter');
    expect(deadLetterQueueOf('a.b')).toBe('a.b.dead-letter');
    expect(Object.isFrozen(job)).toBe(true);
  });

  it.each([
    [{ name: 'Upper' }, /Invalid job name/],
    [{ name: 'a b' }, /Invalid job name/],
    [{ retryLimit: -1 }, /retryLimit/],
    [{ retryDelaySeconds: 0.5 }, /retryDelaySeconds/],
  ])('refuses a bad declaration %j', (override, message) => {
    expect(() => defineJob({ name: 'ok.job', retryLimit: 1, retryDelaySeconds: 1, retryBackoff: false, ...override })).toThrow(message);
  });

  it("reads JOBS_* settings, refusing a poll interval under pg-boss's 500 ms", () => {
    expect(loadConfig({}).jobs).toEqual({ enabled: true, concurrency: 2, pollIntervalMs: 2000 });
    expect(loadConfig({ JOBS_ENABLED: 'false', JOBS_CONCURRENCY: '8', JOBS_POLL_INTERVAL_MS: '500' }).jobs).toEqual({
      enabled: false,
      concurrency: 8,
      pollIntervalMs: 500,
    });
    expect(() => loadConfig({ JOBS_POLL_INTERVAL_MS: '499' })).toThrow(/^Invalid environment variable JOBS_POLL_INTERVAL_MS: /);
    expect(() => loadConfig({ JOBS_CONCURRENCY: '0' })).toThrow(/^Invalid environment variable JOBS_CONCURRENCY: /);
  });
});
