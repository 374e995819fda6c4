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
    payload: withoutConfiguration(event.payload),
    status: event.status,
  };
  if (event.installationId) json.installationId = event.installationId;
  return json;
}

export function presentEventWithTrace(integration: Integration, event: IntegrationEvent): { event: IntegrationEventJson; trace: { logs: TraceLog[] } } {
  return { event: presentEvent(integration, event), trace: { logs: event.logs } };
}

/**
 * The payload as the API shows it: an `*_setup` event's `previous.configuration` (the installing
 * organization's configuration, API keys included) is left out. Events are read by the integration's
 * owners, who do not administer the installations; the script received the payload whole.
 */
function withoutConfiguration(payload: Record<string, unknown>): Record<string, unknown> {
  const previous = payload.previous;
  if (typeof previous !== 'object' || previous === null || !('configuration' in previous)) return payload;
  const { configuration: _hidden, ...rest } = previous as Record<string, unknown>;
  return { ...payload, previous: rest };
}
