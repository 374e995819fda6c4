import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { FoldResult, InsightsRepository } from './insights.repository';

/**
 * Folds newly stored events into the minute and hourly rollups every INSIGHTS_FOLD_INTERVAL_MS (one
 * fold at a time per replica; replicas take turns on the watermark row). Aggregates stay exact in
 * between: they read the rows above the watermark raw (insights-query.compiler.ts).
 */
@Injectable()
export class InsightsFoldService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(InsightsFoldService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<FoldResult>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly repository: InsightsRepository,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.config.insights.foldIntervalMs;
    if (interval > 0) this.schedule(interval);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Folds what was stored until now (waits for a fold already running, then runs one more). */
  async fold(): Promise<FoldResult> {
    while (this.running) await this.running.catch(() => undefined);
    const running = this.foldOnce();
    this.running = running;
    try {
      return await running;
    } finally {
      if (this.running === running) this.running = undefined;
    }
  }

  private async foldOnce(): Promise<FoldResult> {
    const result = await this.dataSource.transaction((em) => this.repository.fold(em));
    // Summarized block ranges let an aggregate skip the folded rows; an unsummarized one is read whole.
    if (result.to !== result.from) await this.repository.summarizeIngestIndex(this.dataSource.manager);
    return result;
  }

  private schedule(interval: number): void {
    this.timer = setTimeout(() => {
      this.fold()
        .catch((error: unknown) => this.logger.warn({ msg: 'insights fold failed; retried at the next tick', err: error }))
        .finally(() => {
          if (this.timer) this.schedule(interval);
        });
    }, interval);
    this.timer.unref();
  }
}
