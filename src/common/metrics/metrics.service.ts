import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

/** The route label of a request that matched no route: keeps unknown paths from creating a series each. */
const UNMATCHED = '<unmatched>';

/**
 * The app's Prometheus registry, one per app (tests build several in one process). Other modules
 * add their own metrics to `registry` (the job queue: depth, failures), named `quire_<area>_…`.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requestDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    // Process metrics, event-loop lag (`nodejs_eventloop_lag_seconds` and its percentiles) among them.
    collectDefaultMetrics({ register: this.registry });
    this.requestDuration = new Histogram({
      name: 'quire_http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const pool = () => (dataSource.driver as unknown as { master?: Pool }).master;
    const gauge = (name: string, help: string, read: (pool: Pool) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const current = pool();
          if (current) this.set(read(current));
        },
      });
    gauge('quire_db_pool_connections_total', 'PostgreSQL pool: connections open (in use + idle)', (p) => p.totalCount);
    gauge('quire_db_pool_connections_idle', 'PostgreSQL pool: idle connections', (p) => p.idleCount);
    gauge('quire_db_pool_connections_in_use', 'PostgreSQL pool: connections checked out by a query or transaction', (p) => p.totalCount - p.idleCount);
    gauge('quire_db_pool_waiting', 'PostgreSQL pool: requests waiting for a connection', (p) => p.waitingCount);
  }

  /**
   * Records a completed request's duration (`common/http/request-edge.ts` times every request); the
   * route label is the matched template (`/v1/spaces/:spaceId`), never the URL.
   */
  observe(request: IncomingMessage, response: ServerResponse, seconds: number): void {
    const route = ((request as Request).route as { path?: string } | undefined)?.path;
    this.requestDuration.observe(
      { method: request.method, route: typeof route === 'string' ? route : UNMATCHED, status: String(response.statusCode) },
      seconds,
    );
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
