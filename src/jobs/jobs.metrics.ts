import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../common/metrics/metrics.service';
import { JobsService } from './jobs.service';

/**
 * The job queue on `/metrics`: `quire_jobs{queue,state}` (queued, active, retrying, dead_lettered;
 * all replicas, one query per scrape) and `quire_jobs_processed_total{queue,outcome}` (completed,
 * failed, dead_lettered; this replica since it started).
 */
@Injectable()
export class JobsMetrics {
  constructor(metrics: MetricsService, jobs: JobsService) {
    new Gauge({
      name: 'quire_jobs',
      help: 'Jobs per queue and state (queued includes retrying; all replicas)',
      labelNames: ['queue', 'state'],
      registers: [metrics.registry],
      async collect() {
        this.reset();
        for (const queue of await jobs.stats()) {
          this.set({ queue: queue.name, state: 'queued' }, queue.queued);
          this.set({ queue: queue.name, state: 'active' }, queue.active);
          this.set({ queue: queue.name, state: 'retrying' }, queue.retrying);
          this.set({ queue: queue.name, state: 'dead_lettered' }, queue.deadLettered);
        }
      },
    });
    new Counter({
      name: 'quire_jobs_processed_total',
      help: 'Job attempts this replica ran, by outcome (failed counts every failed attempt; dead_lettered the last ones)',
      labelNames: ['queue', 'outcome'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const { name, counters } of jobs.processed()) {
          this.inc({ queue: name, outcome: 'completed' }, counters.completed);
          this.inc({ queue: name, outcome: 'failed' }, counters.failed);
          this.inc({ queue: name, outcome: 'dead_lettered' }, counters.deadLettered);
        }
      },
    });
  }
}
