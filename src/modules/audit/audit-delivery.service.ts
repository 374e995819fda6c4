import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { EventsService } from '../integrations/events.service';
import { sealOrganization } from './audit-chain';
import { AuditDeliveryRepository } from './audit-delivery.repository';
import type { AuditEventRow } from './audit.read-model';

/** How often each replica with JOBS_ENABLED hands new sealed events to the installations that asked for them. */
export const AUDIT_DELIVERY_INTERVAL_MS = 5_000;
/** Events per `audit_event` integration event. */
export const AUDIT_DELIVERY_BATCH = 100;
/** Batches per installation and run: a backlog is caught up over the next runs. */
const BATCHES_PER_RUN = 10;

/**
 * `audit_event` (a Quire extension event): every few seconds, for each active installation of an
 * integration that lists `audit_event` in its events, the sealed events of its organization after the
 * installation's cursor, up to 100 per integration event, stored and queued through the integration
 * event path (`EventsService.emit`: retried with backoff, traced) in the transaction that moves the
 * cursor. Never in a write's transaction: the write only inserts its audit event; delivery follows
 * the sealer (and seals the organization itself first), so an installation gets events in chain order, each
 * once, starting with the first recorded after it was seen.
 */
@Injectable()
export class AuditDeliveryService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Audit');
  private running: Promise<number> | null = null;
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly deliveries: AuditDeliveryRepository,
    private readonly events: EventsService,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.jobs.enabled || !this.config.auditEnabled) return;
    this.timer = setInterval(() => void this.deliverAll(), AUDIT_DELIVERY_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Queues what waits for every subscribed installation; answers how many integration events were queued. */
  async deliverAll(): Promise<number> {
    if (this.running) return 0;
    this.running = this.deliverEach().finally(() => (this.running = null));
    return this.running;
  }

  /** The public `AuditEventDetails` of a row, as `getOrganizationAuditEvent` answers it (audit.presenter.ts, for controllers only). */
  private details(row: AuditEventRow): Record<string, unknown> {
    const labelled = (type: string, id: string, label: string | null) => ({ type, id, ...(label !== null && { label }) });
    return {
      object: 'audit-event',
      id: row.id,
      occurredAt: row.occurred_at.toISOString(),
      action: row.action,
      actor: labelled(row.actor_type, row.actor_id, row.actor_label),
      source: row.source,
      target: labelled(row.target_type, row.target_id, row.target_label),
      urls: { location: this.config.apiUrl(`/v1/orgs/${row.organization_id}/audit-events/${row.id}`) },
      ...(row.execution_id !== null && { executionId: row.execution_id }),
      ...(row.correlation_id !== null && { correlationId: row.correlation_id }),
      ...(row.caused_by_event_id !== null && { causedByEventId: row.caused_by_event_id }),
      schemaVersion: row.schema_version,
      payload: row.payload,
    };
  }

  private async deliverEach(): Promise<number> {
    let queued = 0;
    try {
      const sealed = new Set<string>();
      for (const subscriber of await this.deliveries.subscribers()) {
        // Whatever the organization has committed is sealed first (once a run): a new subscriber is then placed after
        // every event recorded before it was seen (its own installation's included), not before those a sealer had yet
        // to reach.
        if (!sealed.has(subscriber.organizationId)) {
          await sealOrganization(this.dataSource, subscriber.organizationId);
          sealed.add(subscriber.organizationId);
        }
        for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
          const sent = await this.dataSource.transaction(async (em) => {
            const after = await this.deliveries.lockCursor(subscriber, em);
            if (after === null) return 0;
            const rows = await this.deliveries.sealedAfter(subscriber.organizationId, after, AUDIT_DELIVERY_BATCH, em);
            if (rows.length === 0) return 0;
            await this.events.emit(
              {
                integrationId: subscriber.integrationId,
                installationId: subscriber.installationId,
                payload: {
                  type: 'audit_event',
                  installationId: subscriber.installationId,
                  organizationId: subscriber.organizationId,
                  events: rows.map((row) => this.details(row)),
                },
              },
              em,
            );
            await this.deliveries.advance(subscriber.installationId, Number(rows[rows.length - 1].seq), em);
            return rows.length;
          });
          if (sent === 0) break;
          queued++;
          if (sent < AUDIT_DELIVERY_BATCH) break;
        }
      }
    } catch (error) {
      this.logger.warn({ msg: 'audit delivery failed; the next run retries', err: error });
    }
    return queued;
  }
}
