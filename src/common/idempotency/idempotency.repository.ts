import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** How long a key is remembered, and how long an unfinished first attempt holds it before a retry may take over. */
export const IDEMPOTENCY_TTL = '24 hours';
export const IDEMPOTENCY_LEASE_SECONDS = 30;

export interface StoredAnswer {
  status: number;
  body: unknown;
  location: string | null;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'mismatch' } | { kind: 'in_flight' } | { kind: 'lost' };

interface KeyRow {
  fingerprint: string;
  state: 'in_flight' | 'committed' | 'completed';
  /** The attempt that holds the key is still running (its lease has not run out). */
  leased?: boolean;
  response_status: number | null;
  response_body: unknown;
  response_location: string | null;
}

/** Every query on `idempotency_keys`. Runs outside the request's own transactions, on purpose. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Takes the key for this request, or says why not. One statement claims a new key, an expired
   * one, or an unfinished attempt of the same request whose lease ran out (its process died or
   * lost the database before it committed anything).
   */
  async claim(caller: string, key: string, fingerprint: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed: unknown[] = await this.dataSource.query(
        `INSERT INTO idempotency_keys (caller, key, fingerprint, state, locked_until, expires_at)
         VALUES ($1, $2, $3, 'in_flight', now() + make_interval(secs => $4), now() + interval '${IDEMPOTENCY_TTL}')
         ON CONFLICT (caller, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', locked_until = EXCLUDED.locked_until,
               expires_at = EXCLUDED.expires_at, created_at = now(),
               response_status = NULL, response_body = NULL, response_location = NULL
           WHERE idempotency_keys.expires_at < now()
              OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until < now()
                  AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
         RETURNING 1`,
        [caller, key, fingerprint, IDEMPOTENCY_LEASE_SECONDS],
      );
      if (claimed.length > 0) return { kind: 'claimed' };
      const [row] = (await this.dataSource.query(
        `SELECT fingerprint, state, response_status, response_body, response_location, locked_until > now() AS leased
           FROM idempotency_keys WHERE caller = $1 AND key = $2`,
        [caller, key],
      )) as KeyRow[];
      if (!row) continue; // released between the two statements: try to claim again
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.state === 'completed') {
        return { kind: 'replay', answer: { status: row.response_status ?? 201, body: row.response_body, location: row.response_location } };
      }
      // Committed but no answer yet: while the attempt still holds its lease it is about to record
      // the answer (a race, not an outage); only once the lease ran out was the answer lost.
      return { kind: row.state === 'committed' && !row.leased ? 'lost' : 'in_flight' };
    }
    return { kind: 'in_flight' };
  }

  /** Keeps the lease of an attempt still running. */
  async extend(caller: string, key: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET locked_until = now() + make_interval(secs => $3)
        WHERE caller = $1 AND key = $2 AND state = 'in_flight'`,
      [caller, key, IDEMPOTENCY_LEASE_SECONDS],
    );
  }

  /** Inside a transaction of the request, just before it commits: from now on a retry must not run again. */
  async markCommitted(manager: EntityManager, caller: string, key: string): Promise<void> {
    await manager.query(`UPDATE idempotency_keys SET state = 'committed' WHERE caller = $1 AND key = $2 AND state = 'in_flight'`, [caller, key]);
  }

  async complete(caller: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys
          SET state = 'completed', locked_until = NULL, response_status = $3, response_body = $4::jsonb, response_location = $5
        WHERE caller = $1 AND key = $2`,
      [caller, key, answer.status, JSON.stringify(answer.body ?? null), answer.location],
    );
  }

  /**
   * Frees a key whose request failed before anything committed, so the caller may try again; a key
   * whose request committed and then failed keeps its state, and its lease ends (a retry is told the
   * answer was lost at once, instead of "in progress" until the lease runs out).
   */
  async release(caller: string, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND state = 'in_flight'`, [caller, key]);
    await this.endLease(caller, key);
  }

  /** Ends the lease of an attempt that committed but will record no answer. */
  async endLease(caller: string, key: string): Promise<void> {
    await this.dataSource.query(`UPDATE idempotency_keys SET locked_until = now() WHERE caller = $1 AND key = $2 AND state = 'committed'`, [caller, key]);
  }

  /** Deletes expired keys, a batch at a time; returns how many went. */
  async purgeExpired(batch = 1000): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at < now() LIMIT $1)`,
      [batch],
    )) as [unknown, number];
    return count;
  }
}
