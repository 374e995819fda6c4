import type { IntegrationEvent } from './integration-event.entity';
import type { Integration } from './integration.entity';
import type { TraceLog } from './integration.read-model';

/** `IntegrationEvent` (section 2.23); `status` is `pending` until its first delivery ends. */
export interface IntegrationEventJson {
  id: string;
  integrationId: string;
  installationId?: string;
  createdAt: string;
  payload: Record<string, unknown>;
  status: string;
}

export function presentEvent(integration: Integration, event: IntegrationEvent): IntegrationEventJson {
  const json: IntegrationEventJson = {
    id: event.id,
    integrationId: integration.name,
    createdAt: event.createdAt.toISOString(),
    payload: event.payload,
    status: event.status,
  };
  if (event.installationId) json.installationId = event.installationId;
  return json;
}

export function presentEventWithTrace(integration: Integration, event: IntegrationEvent): { event: IntegrationEventJson; trace: { logs: TraceLog[] } } {
  return { event: presentEvent(integration, event), trace: { logs: event.logs } };
}
