import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import type { Page } from '../../common/pagination/paginate';
import { JobsService } from '../../jobs/jobs.service';
import type { User } from '../users/user.entity';
import { EventsRepository } from './events.repository';
import { DELIVER_EVENT } from './integration-event.job-spec';
import { IntegrationEvent } from './integration-event.entity';
import type { Integration } from './integration.entity';
import { integrationError } from './integration.errors';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsRepository } from './integrations.repository';
import { IntegrationsService } from './integrations.service';
import { ScriptDispatcher } from './runtime/script-dispatcher';
import { ScriptFailure, ScriptResult } from './runtime/script-sandbox';
import type { TargetInstallation } from './runtime/environment.read-model';
import type { DispatchContext } from './runtime/script-dispatcher';
import type { TraceLog } from './integration.read-model';
import { AppConfig } from '../../config/app-config';

export interface NewEvent {
  integrationId: string;
  installationId: string | null;
  /** The payload without `eventId` (the event's id is used). */
  payload: Record<string, unknown> & { type: string };
}

/** A delivery that should be tried again (the script failed, not the event). */
class RetryableDelivery extends Error {}

/**
 * Integration events: stored with their status and trace, delivered at least once through the job
 * queue. A 2xx answer is `success`; a 4xx (no handler: 406) is `failed` at once; a crash, time-out,
 * memory stop or 5xx is `failed` and retried with backoff until the queue's retries are spent.
 */
@Injectable()
export class EventsService {
  private readonly logger = new Logger('IntegrationEvents');

  constructor(
    private readonly events: EventsRepository,
    private readonly integrations: IntegrationsRepository,
    private readonly installations: InstallationsRepository,
    private readonly integrationsService: IntegrationsService,
    private readonly dispatcher: ScriptDispatcher,
    private readonly jobs: JobsService,
    private readonly config: AppConfig,
  ) {}

  /**
   * A call that is answered at once (a render, a public-endpoint request, a script fetch): dispatched,
   * then stored as a handled event with the script's logs (`success` for a 2xx answer, `failed`
   * otherwise), so a failing render leaves its trace in `GET …/events` like a delivery does.
   */
  async traced(integration: Integration, event: Record<string, unknown> & { type: string; eventId: string }, context: DispatchContext): Promise<ScriptResult> {
    const record = (status: 'success' | 'failed', logs: TraceLog[], error: string | null) =>
      this.events
        .insertHandled({
          id: event.eventId,
          integrationId: integration.id,
          installationId: context.installation?.id ?? null,
          payload: event,
          status,
          logs,
          error,
        })
        .catch((failure: unknown) => this.logger.warn({ msg: 'could not record an integration call', eventId: event.eventId, err: failure }));
    try {
      const result = await this.dispatcher.dispatch(integration, event, context);
      const ok = result.status >= 200 && result.status < 300;
      await record(ok ? 'success' : 'failed', result.logs, ok ? null : `the script answered ${result.status}`);
      return result;
    } catch (error) {
      const failure = error instanceof ScriptFailure ? error : new ScriptFailure('crashed', (error as Error).message);
      await record('failed', [...failure.logs, { level: 'error', message: failure.message, timestamp: new Date().toISOString() }], failure.message);
      throw failure;
    }
  }

  /** Deletes events past the retention period (`INTEGRATION_EVENT_RETENTION_DAYS`), in batches; answers how many. */
  async purgeExpired(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.integrations.eventRetentionDays * 86_400_000);
    let purged = 0;
    for (;;) {
      const deleted = await this.events.purgeBefore(before, 5000);
      purged += deleted;
      if (deleted < 5000) return purged;
    }
  }

  /** Stores the event and queues its delivery in the caller's transaction: both or neither. */
  async emit(event: NewEvent, manager: EntityManager): Promise<string> {
    const id = newId();
    await this.events.insert(
      { id, integrationId: event.integrationId, installationId: event.installationId, payload: { ...event.payload, eventId: id } },
      manager,
    );
    await this.jobs.send(DELIVER_EVENT, { eventId: id }, { manager });
    return id;
  }

  async deliver(eventId: string, attempt: number, maxAttempts: number): Promise<void> {
    const event = await this.events.findById(eventId);
    if (!event) return; // unpublished or uninstalled meanwhile
    const integration = await this.integrations.findById(event.integrationId);
    if (!integration) return;
    const installation = event.installationId ? await this.installations.findById(event.installationId) : null;
    const target = await this.targetOf(event, installation?.id);
    try {
      const result = await this.dispatcher.dispatch(integration, event.payload, { installation, target });
      const ok = result.status >= 200 && result.status < 300;
      const error = ok ? null : `the script answered ${result.status}: ${result.body.toString('utf8').slice(0, 500)}`;
      await this.events.record(eventId, { status: ok ? 'success' : 'failed', logs: result.logs, error, attempts: attempt });
      if (result.status >= 500) throw new RetryableDelivery(error!);
    } catch (error) {
      if (error instanceof RetryableDelivery) throw error;
      const failure = error instanceof ScriptFailure ? error : new ScriptFailure('crashed', (error as Error).message);
      const logs = [...failure.logs, { level: 'error' as const, message: failure.message, timestamp: new Date().toISOString() }];
      await this.events.record(eventId, { status: 'failed', logs, error: failure.message, attempts: attempt });
      if (attempt < maxAttempts) this.logger.warn({ msg: 'integration event failed; will retry', eventId, reason: failure.kind });
      throw new RetryableDelivery(failure.message);
    }
  }

  /**
   * The space or site installation an event concerns, as stored (never made up): site events
   * (`site_view`, `site_installation_setup`, a site's `fetch_published_script`) carry the site's,
   * space events the space's. `site_view` payloads also name the space shown, which is not its target.
   */
  private async targetOf(event: IntegrationEvent, installationId: string | undefined): Promise<TargetInstallation | null> {
    if (!installationId) return null;
    const { payload } = event;
    const kind = payload.type.startsWith('space_')
      ? 'space'
      : typeof payload.siteId === 'string'
        ? 'site'
        : typeof payload.spaceId === 'string'
          ? 'space'
          : null;
    if (!kind) return null;
    const targetId = payload[`${kind}Id`];
    if (typeof targetId !== 'string') return null;
    const row = await this.installations.findTarget(kind, installationId, targetId);
    return row ? { kind, targetId, status: row.status, configuration: row.configuration, externalIds: row.externalIds } : null;
  }

  async list(user: User, name: string, query: { page?: string; limit: number }): Promise<{ integration: Integration; page: Page<IntegrationEvent> }> {
    const { integration } = (await this.integrationsService.getAsAdmin(user, name, 'read the events of')).value;
    return { integration, page: await this.events.list(integration.id, query) };
  }

  async get(user: User, name: string, eventId: string): Promise<{ integration: Integration; event: IntegrationEvent }> {
    const { integration } = (await this.integrationsService.getAsAdmin(user, name, 'read the events of')).value;
    const event = await this.events.find(integration.id, eventId);
    if (!event) throw integrationError('integration.event_not_found', `Event ${eventId} not found`);
    return { integration, event };
  }
}
