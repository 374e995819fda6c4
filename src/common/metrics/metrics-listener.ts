import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

/**
 * With METRICS_PORT, `/metrics` is served by a listener of its own on HOST:METRICS_PORT (a port the
 * load balancer does not expose), still behind METRICS_TOKEN when that is set too.
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  /** The port it listens on (useful with METRICS_PORT=0), or undefined when it does not. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, token } = this.config.metrics;
    if (port === undefined) return;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { code: 404, message: 'Not found' } }));
        return;
      }
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (token && !(given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token)))) {
        res
          .writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="quire-metrics"' })
          .end(JSON.stringify({ error: { code: 401, message: 'The metrics token is missing or wrong' } }));
        return;
      }
      this.metrics.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ msg: 'metrics listening', port: this.port });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
