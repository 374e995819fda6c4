import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobsService } from '../../../jobs/jobs.service';
import { ChangeRequestPdfService } from './change-request-pdf.service';
import { PDF_RENDER_KEEP_MS, PDF_RENDER_STALE_MS, PURGE_PDF_RENDERS, RENDER_PDF } from './pdf-jobs';
import { PdfRendersRepository } from './pdf-renders.repository';

/** Registers the render and purge jobs of change-request PDFs (see `pdf-jobs.ts`). */
@Injectable()
export class PdfRenderJobs implements OnModuleInit {
  private readonly logger = new Logger(PdfRenderJobs.name);

  constructor(
    private readonly jobs: JobsService,
    private readonly renders: PdfRendersRepository,
    private readonly pdfs: ChangeRequestPdfService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(RENDER_PDF, ({ renderId }, { attempt, maxAttempts }) => this.pdfs.renderJob(renderId, attempt >= maxAttempts));
    await this.jobs.register(PURGE_PDF_RENDERS, async () => {
      await this.purge();
    });
  }

  async purge(now = new Date()): Promise<number> {
    let total = 0;
    let deleted: number;
    do {
      deleted = await this.renders.purge(new Date(now.getTime() - PDF_RENDER_KEEP_MS), new Date(now.getTime() - PDF_RENDER_STALE_MS));
      total += deleted;
    } while (deleted > 0);
    if (total > 0) this.logger.log({ msg: 'purged change-request PDF renders', purged: total });
    return total;
  }
}
