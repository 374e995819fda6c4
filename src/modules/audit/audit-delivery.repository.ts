import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuditChainRepository } from './audit-chain.repository';
import type { SealedAuditEventRow } from './audit.read-model';

export interface AuditSubscriber {
  installationId: string;
  integrationId: string;
  organizationId: string;
}

/** The statements of the `audit_event` delivery: who asked for it, where each installation is in its organization's chain. */
@Injectable()
export class AuditDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Active installations of integrations that list `audit_event` in their events. */
  subscribers(): Promise<AuditSubscriber[]> {
    return this.dataSource.query(
      `SELECT n.id AS "installationId", n.integration_id AS "integrationId", n.organization_id AS "organizationId"
         FROM integration_installations n JOIN integrations i ON i.id = n.integration_id
        WHERE n.status = 'active' AND i.events @> '["audit_event"]'::jsonb
        ORDER BY n.id`,
    );
  }

  /**
   * The installation's place in its organization's chain, locked for this delivery (another replica
   * delivering it skips it: null). A new subscriber starts at the chain's head: it gets what follows.
   */
  async lockCursor(subscriber: AuditSubscriber, em: EntityManager): Promise<number | null> {
    await em.query(
      `INSERT INTO audit_event_deliveries (installation_id, organization_id, last_seq)
       VALUES ($1, $2, coalesce((SELECT seq FROM audit_chains WHERE organization_id = $2), 0))
       ON CONFLICT (installation_id) DO NOTHING`,
      [subscriber.installationId, subscriber.organizationId],
    );
    const rows: { last_seq: string }[] = await em.query(`SELECT last_seq FROM audit_event_deliveries WHERE installation_id = $1 FOR UPDATE SKIP LOCKED`, [
      subscriber.installationId,
    ]);
    return rows.length ? Number(rows[0].last_seq) : null;
  }

  /** Sealed events of the organization after `seq`, in chain order. */
  sealedAfter(organizationId: string, seq: number, limit: number, em: EntityManager): Promise<SealedAuditEventRow[]> {
    return AuditChainRepository.sealedAfter(em, organizationId, seq, limit);
  }

  async advance(installationId: string, seq: number, em: EntityManager): Promise<void> {
    await em.query(`UPDATE audit_event_deliveries SET last_seq = $2 WHERE installation_id = $1`, [installationId, seq]);
  }
}
