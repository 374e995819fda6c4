import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { defineJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { SearchTablesRepository } from './search-tables.repository';

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

@Injectable()
export class SearchTablesJob implements OnModuleInit {
  private readonly logger = new Logger(SearchTablesJob.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly tables: SearchTablesRepository,
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
    const dropped: string[] = [];
    for (const name of await this.tables.unnamed()) if (await this.tables.dropIfRetired(name)) dropped.push(name);
    return dropped;
  }
}
