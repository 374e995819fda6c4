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
  describeIdempotencyKeys(document);
  describeExtensionEvents(document);
  return document;
}

/**
 * Quire extension events (`x-quire-extension`), asked for in `PublishIntegration.events`: `audit_event`
 * hands an installation its organization's audit events, in chain order, up to 100 per event.
 */
function describeExtensionEvents(document: OpenAPIObject): void {
  const schemas = (document.components!.schemas ??= {}) as Record<string, Record<string, unknown>>;
  schemas.AuditEventIntegrationEvent = {
    'x-quire-extension': 'audit-event',
    description:
      'Quire extension event, delivered to installations of integrations that list `audit_event` in their events: ' +
      'audit events of the installation’s organization, sealed in its hash chain, in chain order, each once.',
    type: 'object',
    required: ['type', 'eventId', 'installationId', 'organizationId', 'events'],
    properties: {
      type: { type: 'string', const: 'audit_event' },
      eventId: { type: 'string' },
      installationId: { type: 'string' },
      organizationId: { type: 'string' },
      events: { type: 'array', maxItems: 100, items: { $ref: '#/components/schemas/AuditEventDetails' } },
    },
  };
  const publish = schemas.PublishIntegrationDto?.properties as Record<string, Record<string, unknown>> | undefined;
  if (publish?.events) publish.events['x-quire-extension'] = 'integration-events';
}

/** Every create (a POST answering 201) takes an optional `Idempotency-Key` (common/idempotency). */
function describeIdempotencyKeys(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    const create = item.post;
    if (!create?.responses?.['201']) continue;
    create.parameters = [
      ...(create.parameters ?? []),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: the same key and request within 24 h answer the first answer again (with `Idempotent-Replayed: true`) ' +
          'instead of creating twice; the same key with another request answers 422, while the first is still running 409.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    ];
  }
}
