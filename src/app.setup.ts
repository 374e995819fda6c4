import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { Logger } from 'pino';
import { createValidationPipe } from './common/errors/validation';
import { weakEtag } from './common/http/json-reply.adapter';
import { requestEdge } from './common/http/request-edge';
import { bindAudit } from './common/audit/audit.routes';
import { bindIdempotency } from './common/idempotency/idempotency.routes';
import { useInputGate } from './common/input-gate/input-gate';
import { MetricsService } from './common/metrics/metrics.service';
import { EntityIdParamPipe } from './common/validation/entity-id-param.pipe';
import { buildOpenApiDocument } from './common/openapi/document';
import { AppConfig } from './config/app-config';
import { bindCacheTags } from './modules/published/site-auth/cache-tags.guard';

/** Everything between "app created" and "listening", shared by the server, the tests and the bench. */
export function setupApp(app: NestExpressApplication, config: AppConfig, logger: Logger): INestApplication {
  app.disable('x-powered-by');
  // express's weak ETag, computed without a copy of the body (common/http/json-reply.adapter.ts).
  app.set('etag', weakEtag);
  // Forwarded headers are believed only from the proxies the operator names (TRUST_PROXY), by default none:
  // integration scripts call back from loopback, and a private network may hold clients too.
  app.set('trust proxy', config.trustProxy.length > 0 ? config.trustProxy : false);
  // Request id, security headers, the log line and the duration metric: one middleware, one listener.
  app.use(requestEdge(logger, app.get(MetricsService)));
  useInputGate(app, config);
  // Ids in the path first (400 naming the parameter), then the DTOs.
  app.useGlobalPipes(new EntityIdParamPipe(), createValidationPipe());
  bindIdempotency(app);
  // x-gitbook-cache-tag: a guard on the routes open to site tokens, after their own guards.
  bindCacheTags(app);
  bindAudit(app);

  // Built on the first request for it, not at start: scanning every controller costs each start (and each test
  // file) a few hundred milliseconds of CPU for a document few of them ask for.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return app;
}
