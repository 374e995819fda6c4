import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { sealQueued, type SealerProgress } from './audit-chain';

/** How often each replica seals what was recorded meanwhile (replicas take turns per organization, on its chain row). */
export const AUDIT_SEAL_INTERVAL_MS = 5_000;

/**
 * Gives recorded events their place in their organization's hash chain, a few seconds after they
 * commit. Every replica that runs background work (JOBS_ENABLED) runs it; the lock of the
 * organization's `audit_chains` row makes them take turns, and a sealed event is never sealed again.
 * `audit:verify` seals first, so a replica set without workers still verifies everything.
 */
@Injectable()
export class AuditSealerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Audit');
  /** The seal in flight, awaited on shutdown (before the data source closes under it). */
  private running: Promise<number> | null = null;
  private timer?: NodeJS.Timeout;
  private readonly progress: SealerProgress = { dequeuedSinceVacuum: 0 };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.jobs.enabled) return;
    this.timer = setInterval(() => void this.sealAll(), AUDIT_SEAL_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async sealAll(): Promise<number> {
    if (this.running) return 0;
    this.running = this.sealEach().finally(() => (this.running = null));
    return this.running;
  }

  private async sealEach(): Promise<number> {
    try {
      return await sealQueued(this.dataSource, this.progress);
    } catch (error) {
      this.logger.warn({ msg: 'audit sealing failed; the next run retries', err: error });
      return 0;
    }
  }
}
