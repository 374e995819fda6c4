import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../../jobs/job-definition';
import { JobsService } from '../../../jobs/jobs.service';
import { EmbedsRepository } from './embeds.repository';

/** Rows of `embed_cache` are kept this long after their fetch (a fresh one lasts a day; older ones would be fetched again anyway). */
export const EMBED_CACHE_KEEP_DAYS = 7;

/** The daily purge of old embeds, so the cache holds the URLs readers still see, not every URL ever embedded. */
export const PURGE_EMBED_CACHE = defineMaintenanceJob('content.purge-embed-cache', '41 3 * * *');

@Injectable()
export class PurgeEmbedCacheJob implements OnModuleInit {
  private readonly logger = new Logger(PurgeEmbedCacheJob.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly embeds: EmbedsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(PURGE_EMBED_CACHE, async () => {
      await this.run();
    });
  }

  async run(): Promise<number> {
    const purged = await this.embeds.purgeOlderThan(EMBED_CACHE_KEEP_DAYS);
    if (purged > 0) this.logger.log({ msg: 'purged old embeds', purged });
    return purged;
  }
}
