import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditChainRepository, type SealedBatch } from './audit-chain.repository';
import type { AuditEventRow } from './audit.read-model';

/** The `prev_hash` of an organization's first event. */
export const GENESIS_HASH = '0'.repeat(64);
const SEAL_BATCH = 1000;
/**
 * A create whose target id the commit hook could not see gets it from the response a moment after
 * the commit; such an event is sealed once complete, or after this long whatever it holds.
 */
const PENDING_TARGET_GRACE = '1 minute';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value instanceof Date ? value.toISOString() : value) ?? 'null';
}

/** SHA-256 of the previous hash and every recorded field of the event, in a fixed order. */
export function hashEvent(prevHash: string, seq: number, row: AuditEventRow): string {
  const fields = [
    seq,
    row.id,
    row.organization_id,
    row.occurred_at.toISOString(),
    row.action,
    row.actor_type,
    row.actor_id,
    row.actor_label,
    row.source,
    row.target_type,
    row.target_id,
    row.target_label,
    row.correlation_id,
    row.execution_id,
    row.caused_by_event_id,
    row.ip,
    row.user_agent,
    row.schema_version,
    row.payload,
  ];
  return createHash('sha256').update(prevHash).update('\n').update(canonical(fields)).digest('hex');
}

/**
 * Chains an organization's unsealed events, in the order this finds them, after its chain head,
 * under the lock of its `audit_chains` row: sealers of one organization take turns, writers never
 * wait (they insert unsealed rows). Returns how many events it sealed.
 */
export async function sealOrganization(dataSource: DataSource, organizationId: string): Promise<number> {
  let sealed = 0;
  for (;;) {
    const count = await dataSource.transaction((em) => sealBatch(em, organizationId));
    sealed += count;
    if (count < SEAL_BATCH) return sealed;
  }
}

async function sealBatch(em: EntityManager, organizationId: string): Promise<number> {
  const head = await AuditChainRepository.lockHead(em, organizationId, GENESIS_HASH);
  const rows = await AuditChainRepository.unsealed(em, organizationId, SEAL_BATCH, PENDING_TARGET_GRACE);
  if (rows.length === 0) return 0;
  let seq = head.seq;
  let prev = head.hash;
  const sealed: SealedBatch = { ids: [], times: [], seqs: [], prevs: [], hashes: [], actions: [], actorIds: [], targetIds: [], queueCtids: [] };
  for (const row of rows) {
    seq += 1;
    const hash = hashEvent(prev, seq, row);
    sealed.ids.push(row.id);
    sealed.times.push(row.occurred_at);
    sealed.seqs.push(seq);
    sealed.prevs.push(prev);
    sealed.hashes.push(hash);
    sealed.actions.push(row.action);
    sealed.actorIds.push(row.actor_id);
    sealed.targetIds.push(row.target_id);
    sealed.queueCtids.push(row.queue_ctid);
    prev = hash;
  }
  await AuditChainRepository.seal(em, organizationId, sealed, { seq, hash: prev });
  return rows.length;
}

/**
 * Queue rows a sealer takes out before it vacuums `audit_unsealed` itself. Each sealed event leaves a dead row and
 * index entry that every batch's fetch steps over until vacuum removes them: between autovacuum's passes (a minute
 * apart by default) or with autovacuum off, a batch would otherwise cost more with every event sealed before it.
 */
export const QUEUE_VACUUM_AFTER = 10_000;

/** What one sealer (a replica's, or a bench's) counts between its runs. */
export interface SealerProgress {
  dequeuedSinceVacuum: number;
}

/**
 * Seals every organization's waiting events, then vacuums the queue once this sealer has taken
 * QUEUE_VACUUM_AFTER rows out of it since its last vacuum. Returns how many events it sealed.
 */
export async function sealQueued(dataSource: DataSource, progress: SealerProgress): Promise<number> {
  let sealed = 0;
  for (const organizationId of await AuditChainRepository.organizationsToSeal(dataSource)) sealed += await sealOrganization(dataSource, organizationId);
  progress.dequeuedSinceVacuum += sealed;
  if (progress.dequeuedSinceVacuum >= QUEUE_VACUUM_AFTER) {
    progress.dequeuedSinceVacuum = 0;
    await AuditChainRepository.vacuumQueue(dataSource);
  }
  return sealed;
}

export type VerifyResult =
  { organizationId: string; ok: true; events: number; head: string } | { organizationId: string; ok: false; events: number; brokenAt: string; reason: string };

/**
 * Seals what waits, then walks the organization's chain in order and names the first break: an event whose contents
 * no longer give its hash (edited), whose `prev_hash` is not its predecessor's hash, or before which events are
 * missing (deleted); or a chain head that is not the last event (the newest events deleted); or an event neither
 * sealed nor queued for the sealer. Events the retention dropped are missing by right: those at or before the mark
 * it left on the chain head (`dropped_seq`); the first event after the mark must carry the hash the mark holds.
 */
export async function verifyOrganization(dataSource: DataSource, organizationId: string): Promise<VerifyResult> {
  await sealOrganization(dataSource, organizationId);
  const dropped = (await AuditChainRepository.head(dataSource, organizationId))?.dropped ?? { seq: 0, hash: null };
  let events = 0;
  let last: { seq: number; hash: string; id: string } | null = null;
  const broken = (brokenAt: string, reason: string): VerifyResult => ({ organizationId, ok: false, events, brokenAt, reason });
  for (;;) {
    const rows = await AuditChainRepository.sealedAfter(dataSource, organizationId, last?.seq ?? 0, SEAL_BATCH);
    for (const row of rows) {
      const seq = Number(row.seq);
      const after: number = last?.seq ?? 0;
      if (seq !== after + 1) {
        // Missing events: only those the retention dropped (at or before its mark) may be.
        if (seq - 1 > dropped.seq) {
          const missing = seq - Math.max(after, dropped.seq) - 1;
          return broken(row.id, `${missing} event(s) missing before this one (seq ${Math.max(after, dropped.seq) + 1}..${seq - 1})`);
        }
        // Right after the mark, the event follows the last one dropped; deeper in the dropped range, as given.
        if (seq - 1 === dropped.seq && row.prev_hash !== dropped.hash) return broken(row.id, 'prev_hash does not match the last event the retention dropped');
      } else if (last === null) {
        if (row.prev_hash !== GENESIS_HASH) return broken(row.id, 'the first event does not start the chain (prev_hash is not the genesis hash)');
      } else if (row.prev_hash !== last.hash) {
        return broken(row.id, `prev_hash does not match the hash of the previous event ${last.id}`);
      }
      if (hashEvent(row.prev_hash ?? '', seq, row) !== row.hash)
        return broken(row.id, 'the event was changed after it was sealed (its hash does not match its contents)');
      events += 1;
      last = { seq, hash: row.hash as string, id: row.id };
    }
    if (rows.length < SEAL_BATCH) break;
  }
  // The chain ends at its last event found, or at the mark when the retention dropped every event after that one.
  const end = last !== null && last.seq > dropped.seq ? last : { seq: dropped.seq, hash: dropped.hash };
  const head = await AuditChainRepository.head(dataSource, organizationId);
  const headSeq = head?.seq ?? 0;
  if (headSeq !== end.seq || (end.seq > 0 && head?.hash !== end.hash)) {
    return broken(last?.id ?? '-', `the chain head (seq ${headSeq}) is not the last event found (seq ${end.seq}): the newest events were removed`);
  }
  const outside = await AuditChainRepository.firstOutsideChain(dataSource, organizationId);
  if (outside) return broken(outside, 'the event is outside the chain: neither sealed nor waiting to be (inserted, or taken out of the queue, by hand)');
  return { organizationId, ok: true, events, head: head?.hash ?? GENESIS_HASH };
}
