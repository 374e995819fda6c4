import type { DataSource, EntityManager } from 'typeorm';
import type { SealedAuditEventRow, UnsealedAuditEventRow } from './audit.read-model';

/** Events a batch seals, column by column, in chain order. */
export interface SealedBatch {
  ids: string[];
  times: Date[];
  seqs: number[];
  prevs: string[];
  hashes: string[];
  /** The event's filter values, copied to its link for the filters' indexes. */
  actions: string[];
  actorIds: string[];
  targetIds: string[];
  queueCtids: string[];
}

/** An organization's chain head: the last sealed event's position and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** The chain head as `audit:verify` reads it, with the last event the retention dropped (`seq` 0: none). */
export interface ChainState extends ChainHead {
  dropped: { seq: number; hash: string | null };
}

/**
 * Every statement of the hash chain (`audit-chain.ts` decides the order and the hashes). Plain
 * functions over the transaction or data source they are given: the sealer and `audit:verify` run
 * outside Nest's container too (the CLI).
 */
export const AuditChainRepository = {
  /** The organization's chain head, created at the genesis hash if missing, locked for the transaction. */
  async lockHead(em: EntityManager, organizationId: string, genesis: string): Promise<ChainHead> {
    const lock = () =>
      em.query(`SELECT seq, head_hash FROM audit_chains WHERE organization_id = $1 FOR UPDATE`, [organizationId]) as Promise<
        { seq: string; head_hash: string }[]
      >;
    let [head] = await lock();
    if (!head) {
      // The organization's first seal: its head row made once, then locked as usual.
      await em.query(`INSERT INTO audit_chains (organization_id, head_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [organizationId, genesis]);
      [head] = await lock();
    }
    return { seq: Number(head.seq), hash: head.head_hash };
  },

  /** The chain head as it stands, with the retention's mark (null: the organization has never sealed an event). */
  async head(dataSource: DataSource, organizationId: string): Promise<ChainState | null> {
    const [head] = (await dataSource.query(`SELECT seq, head_hash, dropped_seq, dropped_hash FROM audit_chains WHERE organization_id = $1`, [
      organizationId,
    ])) as { seq: string; head_hash: string; dropped_seq: string; dropped_hash: string | null }[];
    return head ? { seq: Number(head.seq), hash: head.head_hash, dropped: { seq: Number(head.dropped_seq), hash: head.dropped_hash } } : null;
  },

  /**
   * Events waiting in `audit_unsealed`, in seal order, each with its queue row's `ctid` (valid for the transaction:
   * the organization's head lock keeps other sealers away, and nothing else changes a queue row); a create still waiting
   * for its target id waits up to `pendingGrace`. The queue is read in its key's order and each event fetched by its key
   * (the lateral subquery is not merged into a join): a batch's cost is its own size whatever the log's, and the plan
   * does not hang on the tables' statistics.
   */
  unsealed(em: EntityManager, organizationId: string, limit: number, pendingGrace: string): Promise<UnsealedAuditEventRow[]> {
    return em.query(
      `SELECT u.ctid AS queue_ctid, e.* FROM audit_unsealed u
       CROSS JOIN LATERAL (SELECT * FROM audit_events e WHERE e.organization_id = u.organization_id AND e.occurred_at = u.occurred_at AND e.id = u.id OFFSET 0) e
       WHERE u.organization_id = $1 AND (e.target_id <> '' OR e.occurred_at < now() - $2::interval)
       ORDER BY u.occurred_at, u.id LIMIT $3`,
      [organizationId, pendingGrace, limit],
    );
  },

  /**
   * Seals events, in one statement: their links (position, previous hash, hash, and the event's filter values, which
   * the links' indexes serve to filtered pages) in, their queue rows out (by the `ctid`s `unsealed` gave in this
   * transaction: no scan of the queue's dead rows), the chain head past them.
   */
  async seal(em: EntityManager, organizationId: string, sealed: SealedBatch, head: ChainHead): Promise<void> {
    await em.query(
      `WITH linked AS (
         INSERT INTO audit_chain_links (organization_id, seq, occurred_at, id, prev_hash, hash, action, actor_id, target_id)
         SELECT $1, * FROM unnest($2::bigint[], $3::timestamptz[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])),
       dequeued AS (DELETE FROM audit_unsealed WHERE ctid = ANY($10::tid[]))
       UPDATE audit_chains SET seq = $11, head_hash = $12, sealed_at = now() WHERE organization_id = $1`,
      [
        organizationId,
        sealed.seqs,
        sealed.times,
        sealed.ids,
        sealed.prevs,
        sealed.hashes,
        sealed.actions,
        sealed.actorIds,
        sealed.targetIds,
        sealed.queueCtids,
        head.seq,
        head.hash,
      ],
    );
  },

  /** The organizations with events waiting to be sealed. */
  async organizationsToSeal(dataSource: DataSource): Promise<string[]> {
    const rows: { organization_id: string }[] = await dataSource.query(`SELECT DISTINCT organization_id FROM audit_unsealed`);
    return rows.map((row) => row.organization_id);
  },

  /**
   * Vacuums the queue (its dead rows and their index entries out), outside any transaction. A role that does not own
   * the table gets PostgreSQL's warning and nothing done; autovacuum's passes then do it.
   */
  async vacuumQueue(dataSource: DataSource): Promise<void> {
    await dataSource.query(`VACUUM audit_unsealed`);
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
