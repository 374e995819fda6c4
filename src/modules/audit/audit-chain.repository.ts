import type { DataSource, EntityManager } from 'typeorm';
import type { AuditEventRow, SealedAuditEventRow } from './audit.read-model';

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

  /** Events waiting in `audit_unsealed`, in seal order; a create still waiting for its target id waits up to `pendingGrace`. */
  unsealed(em: EntityManager, organizationId: string, limit: number, pendingGrace: string): Promise<AuditEventRow[]> {
    return em.query(
      `SELECT e.* FROM audit_unsealed u JOIN audit_events e USING (organization_id, occurred_at, id)
       WHERE u.organization_id = $1 AND (e.target_id <> '' OR e.occurred_at < now() - $2::interval)
       ORDER BY u.occurred_at, u.id LIMIT $3`,
      [organizationId, pendingGrace, limit],
    );
  },

  /** Seals events: their links (position, previous hash, hash) in, their places in the queue out, the chain head past them. */
  async seal(
    em: EntityManager,
    organizationId: string,
    sealed: { ids: string[]; times: Date[]; seqs: number[]; prevs: string[]; hashes: string[] },
    head: ChainHead,
  ): Promise<void> {
    await em.query(
      `INSERT INTO audit_chain_links (organization_id, seq, occurred_at, id, prev_hash, hash)
       SELECT $1, * FROM unnest($2::bigint[], $3::timestamptz[], $4::uuid[], $5::text[], $6::text[])`,
      [organizationId, sealed.seqs, sealed.times, sealed.ids, sealed.prevs, sealed.hashes],
    );
    await em.query(
      `DELETE FROM audit_unsealed u USING unnest($2::timestamptz[], $3::uuid[]) AS v(occurred_at, id)
       WHERE u.organization_id = $1 AND u.occurred_at = v.occurred_at AND u.id = v.id`,
      [organizationId, sealed.times, sealed.ids],
    );
    await em.query(`UPDATE audit_chains SET seq = $2, head_hash = $3, sealed_at = now() WHERE organization_id = $1`, [organizationId, head.seq, head.hash]);
  },

  /** The organizations with events waiting to be sealed. */
  async organizationsToSeal(dataSource: DataSource): Promise<string[]> {
    const rows: { organization_id: string }[] = await dataSource.query(`SELECT DISTINCT organization_id FROM audit_unsealed`);
    return rows.map((row) => row.organization_id);
  },

  /** The oldest event of the organization with neither a link nor a place in the queue (null: none); one pass over its events. */
  async firstOutsideChain(dataSource: DataSource, organizationId: string): Promise<string | null> {
    const rows: { id: string }[] = await dataSource.query(
      `SELECT e.id FROM audit_events e
       WHERE e.organization_id = $1
         AND NOT EXISTS (SELECT 1 FROM audit_chain_links l WHERE l.organization_id = e.organization_id AND l.occurred_at = e.occurred_at AND l.id = e.id)
         AND NOT EXISTS (SELECT 1 FROM audit_unsealed u WHERE u.organization_id = e.organization_id AND u.occurred_at = e.occurred_at AND u.id = e.id)
       ORDER BY e.occurred_at, e.id LIMIT 1`,
      [organizationId],
    );
    return rows[0]?.id ?? null;
  },

  /**
   * Sealed events after `afterSeq`, in chain order, with their links. An event whose link stays but whose row is
   * gone (deleted, or dropped by the retention) is not returned: the walk sees a gap in `seq`.
   */
  sealedAfter(db: DataSource | EntityManager, organizationId: string, afterSeq: number, limit: number): Promise<SealedAuditEventRow[]> {
    return db.query(
      `SELECT e.*, l.seq, l.prev_hash, l.hash FROM audit_chain_links l
       JOIN audit_events e ON e.organization_id = l.organization_id AND e.occurred_at = l.occurred_at AND e.id = l.id
       WHERE l.organization_id = $1 AND l.seq > $2 ORDER BY l.seq LIMIT $3`,
      [organizationId, afterSeq, limit],
    );
  },
};
