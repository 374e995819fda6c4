import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { defineJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';

/**
 * Drops the search tables of single spaces (`search_pages_<ulid>`) that `search_tables` no longer
 * names: the table a swap retired (sent by the swap's transaction, to run a little after it
 * commits), the table of a purged space (its registry row went with the space), the table built
 * apart for a write that failed (if its writer could not drop it) and whatever a crash left. A table
 * built in its revision's transaction is invisible here until that commits and names it; a table
 * built apart (`SearchIndexWritesRepository.prepare`) is skipped while its revision's transaction
 * holds the advisory lock on its name. Also sent every 15 minutes by pg-boss's cron.
 */
export const DROP_RETIRED_SEARCH_TABLES = defineJob<Record<string, never>>({
  name: 'search.drop-retired-tables',
  cron: '*/15 * * * *',
  retryLimit: 3,
  retryDelaySeconds: 30,
  retryBackoff: true,
  expireInSeconds: 10 * 60,
  concurrency: 1,
});

/** Seconds after a swap before the retired table is dropped: searches that looked its name up just before have ended. */
const DROP_RETIRED_AFTER_SECONDS = 30;
/** Seconds a DROP may wait for searches still reading a retired table before the attempt fails (and is retried). */
const LOCK_TIMEOUT = '5s';

@Injectable()
export class SearchTablesJob implements OnModuleInit {
  private readonly logger = new Logger(SearchTablesJob.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(DROP_RETIRED_SEARCH_TABLES, async () => {
      const dropped = await this.dropRetired();
      if (dropped.length > 0) this.logger.log({ msg: 'dropped retired search tables', tables: dropped.length });
    });
  }

  /** Sends the job in `em`'s transaction (a swap that retired a table), to run shortly after it commits. */
  async dropRetiredAfterCommit(em: EntityManager): Promise<void> {
    await this.jobs.send(DROP_RETIRED_SEARCH_TABLES, {}, { manager: em, startAfter: new Date(Date.now() + DROP_RETIRED_AFTER_SECONDS * 1000) });
  }

  /** Drops every space search table no `search_tables` row names, each in its own short transaction; the names dropped. */
  async dropRetired(): Promise<string[]> {
    const retired: { name: string }[] = await this.dataSource.query(
      `SELECT c.relname AS name
         FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname ~ '^search_pages_[0-9a-z]{26}$'
          AND NOT EXISTS (SELECT 1 FROM search_tables t WHERE t.table_name = c.relname)`,
    );
    const dropped: string[] = [];
    for (const { name } of retired) {
      await this.dataSource.transaction(async (em) => {
        await em.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        // A table built apart for a revision still being written (SearchIndexWritesRepository.prepare) is
        // not named yet: that revision's transaction holds this lock until it ends.
        const [{ free }]: { free: boolean }[] = await em.query(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS free`, [name]);
        if (!free) return;
        // Checked again now: a name is never registered again once retired, nor before its write commits.
        const named: unknown[] = await em.query(`SELECT 1 FROM search_tables WHERE table_name = $1`, [name]);
        if (named.length > 0) return;
        await em.query(`DROP TABLE IF EXISTS "${name}"`);
        dropped.push(name);
      });
    }
    return dropped;
  }
}
