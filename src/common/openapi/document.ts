import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import publicSchemas from '../../../openapi/public-schemas.json';

/** Quire's OpenAPI document, generated from the controllers and DTOs, with the public schemas it references. */
export function buildOpenApiDocument(app: INestApplication, schemas: Record<string, unknown> = publicSchemas): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Quire')
    .setDescription(
      'Management API of a self-hosted documentation platform. Response bodies follow the public API description they mirror; ' +
        'every error answers `{"error":{"code":<status>,"message":"..."}}`.',
    )
    .setOpenAPIVersion('3.1.0')
    .setVersion('1')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = { ...document.components, schemas: { ...schemas, ...document.components?.schemas } as never };
  return document;
}
