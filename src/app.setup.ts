import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { createValidationPipe } from './common/errors/validation';
import { useInputGate } from './common/input-gate/input-gate';
import { requestLogging } from './common/logging/request-logging';
import { buildOpenApiDocument } from './common/openapi/document';
import { AppConfig } from './config/app-config';

/** Everything between "app created" and "listening", shared by the server, the tests and the bench. */
export function setupApp(app: NestExpressApplication, config: AppConfig, logger: Logger): INestApplication {
  app.disable('x-powered-by');
  // Forwarded headers are believed only from proxies on private networks (the load balancer), not from clients.
  app.set('trust proxy', ['loopback', 'linklocal', 'uniquelocal']);
  app.use(requestLogging(logger));
  // The docs page loads Swagger UI's own script and styles; keep the rest of helmet's defaults.
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"] } } }));
  useInputGate(app, config);
  app.useGlobalPipes(createValidationPipe());

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return app;
}
