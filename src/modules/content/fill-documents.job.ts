import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { defineMaintenanceJob } from '../../jobs/job-definition';
import { JobsService } from '../../jobs/jobs.service';
import { ContentRepository } from './content.repository';
import { documentJsonOffLoop } from './text-work/text-workers';

/**
 * Fills `documents.document` of the bodies stored before documents were (a deployment upgrading):
 * every quarter hour until none is left, so reads of those bodies stop parsing.
 */
export const FILL_DOCUMENTS = defineMaintenanceJob('content.fill-documents', '*/15 * * * *');

/** Bodies read and parsed at a time (a body can be 1 MB: the batch bounds what is held). */
const BATCH = 50;
/** One run stops after this long (well inside the job's expiry); the next run goes on. */
const RUN_BUDGET_MS = 10 * 60_000;

@Injectable()
export class FillDocumentsJob implements OnModuleInit {
  private readonly logger = new Logger(FillDocumentsJob.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly content: ContentRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(FILL_DOCUMENTS, async () => {
      await this.run();
    });
  }

  /**
   * Parses the bodies without a document in batches, in the text worker pool (never on the loop,
   * whatever their size), and stores their documents. A body the pool refuses (past its time limit)
   * is left without one and skipped; its reads go on parsing it. Returns how many were filled.
   */
  async run(budgetMs = RUN_BUDGET_MS): Promise<number> {
    const until = Date.now() + budgetMs;
    let after = '';
    let filled = 0;
    let skipped = 0;
    while (Date.now() < until) {
      const bodies = await this.content.bodiesWithoutDocument(after, BATCH);
      if (bodies.length === 0) break;
      after = bodies[bodies.length - 1].id;
      const parsed = await Promise.all(bodies.map((body) => documentJsonOffLoop(body.markdown).catch(() => undefined)));
      const done = bodies.flatMap((body, i) => (parsed[i] === undefined ? [] : [{ id: body.id, document: parsed[i] }]));
      skipped += bodies.length - done.length;
      filled += await this.content.fillDocuments(
        done.map((row) => row.id),
        done.map((row) => row.document),
      );
    }
    if (filled > 0 || skipped > 0) this.logger.log({ msg: 'filled stored documents', filled, skipped });
    return filled;
  }
}
