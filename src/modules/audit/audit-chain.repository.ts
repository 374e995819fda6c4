import type { DataSource, EntityManager } from 'typeorm';
import type { AuditEventRow } from './audit.read-model';

/** An organization's chain head: the last sealed event's position and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * Every statement of the hash chain (`audit-chain.ts` decides the order and the hashes). Plain
 * functions over the transaction or data source they are given: the sealer and `audit:verify` run
 * outside Nest's container too (the CLI).
 */
export const AuditChainRepository = {
  /** The organization's chain head, created at the genesis hash if missing, locked for the transaction. */
  async lockHead(em: EntityManager, organizationId: string, genesis: string): Promise<ChainHead> {
    await em.query(`INSERT INTO audit_chains (organization_id, head_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [organizationId, genesis]);
    const [head] = (await em.query(`SELECT seq, head_hash FROM audit_chains WHERE organization_id = $1 FOR UPDATE`, [organizationId])) as {
      seq: string;
      head_hash: string;
    }[];
    return { seq: Number(head.seq), hash: head.head_hash };
  },

  /** The chain head as it stands (null: the organization has never sealed an event). */
  async head(dataSource: DataSource, organizationId: string): Promise<ChainHead | null> {
    const [head] = (await dataSource.query(`SELECT seq, head_hash FROM audit_chains WHERE organization_id = $1`, [organizationId])) as {
      seq: string;
      head_hash: string;
    }[];
    return head ? { seq: Number(head.seq), hash: head.head_hash } : null;
  },

  /** Unsealed events in seal order; a create still waiting for its target id waits up to `pendingGrace`. */
  unsealed(em: EntityManager, organizationId: string, limit: number, pendingGrace: string): Promise<AuditEventRow[]> {
    return em.query(
      `SELECT * FROM audit_events WHERE organization_id = $1 AND seq IS NULL
         AND (target_id <> '' OR occurred_at < now() - $2::interval)
       ORDER BY occurred_at, id LIMIT $3`,
      [organizationId, pendingGrace, limit],
    );
  },

  /** Seals events (their position, previous hash and hash) and moves the chain head past them. */
  async seal(
    em: EntityManager,
    organizationId: string,
    sealed: { ids: string[]; times: Date[]; seqs: number[]; prevs: string[]; hashes: string[] },
    head: ChainHead,
  ): Promise<void> {
    await em.query(
      `UPDATE audit_events e SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
       FROM unnest($2::uuid[], $3::timestamptz[], $4::bigint[], $5::text[], $6::text[]) AS v(id, occurred_at, seq, prev_hash, hash)
       WHERE e.organization_id = $1 AND e.occurred_at = v.occurred_at AND e.id = v.id`,
      [organizationId, sealed.ids, sealed.times, sealed.seqs, sealed.prevs, sealed.hashes],
    );
    await em.query(`UPDATE audit_chains SET seq = $2, head_hash = $3, sealed_at = now() WHERE organization_id = $1`, [organizationId, head.seq, head.hash]);
  },

  /** The organizations with events waiting to be sealed (a partial index holds only those). */
  async organizationsToSeal(dataSource: DataSource): Promise<string[]> {
    const rows: { organization_id: string }[] = await dataSource.query(`SELECT DISTINCT organization_id FROM audit_events WHERE seq IS NULL`);
    return rows.map((row) => row.organization_id);
  },

  /** Sealed events after `afterSeq`, in chain order. */
  sealedAfter(dataSource: DataSource, organizationId: string, afterSeq: number, limit: number): Promise<AuditEventRow[]> {
    return dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [organizationId, afterSeq, limit]);
  },
};
