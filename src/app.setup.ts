import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { Logger } from 'pino';
import { createValidationPipe } from './common/errors/validation';
import { securityHeaders } from './common/http/security-headers';
import { useInputGate } from './common/input-gate/input-gate';
import { requestLogging } from './common/logging/request-logging';
import { MetricsService } from './common/metrics/metrics.service';
import { buildOpenApiDocument } from './common/openapi/document';
import { AppConfig } from './config/app-config';

/** Everything between "app created" and "listening", shared by the server, the tests and the bench. */
export function setupApp(app: NestExpressApplication, config: AppConfig, logger: Logger): INestApplication {
  app.disable('x-powered-by');
  // Forwarded headers are believed only from proxies on private networks (the load balancer), not from clients.
  app.set('trust proxy', ['loopback', 'linklocal', 'uniquelocal']);
  app.use(requestLogging(logger));
  app.use(app.get(MetricsService).middleware());
  app.use(securityHeaders());
  useInputGate(app, config);
  app.useGlobalPipes(createValidationPipe());

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return app;
}
