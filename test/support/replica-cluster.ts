import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '../../src/common/free-port';

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Why a streaming-replica test cannot run here, or undefined when it can. */
export function replicaClusterUnavailable(): string | undefined {
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_basebackup'))) return `PostgreSQL 15 binaries not found under ${PG_BIN}`;
  if (userInfo().uid === 0 && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser (PostgreSQL refuses root)';
  return undefined;
}

export interface ReplicaCluster {
  /** The primary's `quire` database. */
  primaryUrl: string;
  /** The streaming replica's `quire` database (read-only, replaying with `recovery_min_apply_delay`). */
  replicaUrl: string;
  /** Waits until the replica has replayed everything the primary had written when this was called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** `pg_ctl stop -m fast` on the replica. */
  stopReplica(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * A primary and a streaming replica of our own, in a temporary directory, on free loopback ports: the
 * system cluster's pg_hba has no replication line (and is left alone). The primary runs with
 * `wal_level=replica` and a replication line in its pg_hba; the replica is `pg_basebackup -R` of it
 * with `recovery_min_apply_delay`, so a commit shows on it only after that delay. As root, every
 * PostgreSQL binary runs as `postgres` (`runuser`), in a directory that user owns.
 */
export async function startReplicaCluster(options: { applyDelayMs: number; database?: string }): Promise<ReplicaCluster> {
  const database = options.database ?? 'quire';
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'quire-replica-'));
  if (root) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    chownSync(dir, uid, uid);
  }
  const pg = (binary: string, args: string[]) =>
    root ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args], { cwd: dir }) : run(join(PG_BIN, binary), args, { cwd: dir });
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const settings = (port: number) =>
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      'max_connections = 60',
      'shared_buffers = 16MB',
      // A throwaway cluster: durability buys nothing here.
      'fsync = off',
      'full_page_writes = off',
      '',
    ].join('\n');

  let started: string[] = [];
  const stop = async (dataDir: string) => {
    await pg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  };
  try {
    await pg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    appendFileSync(join(primaryDir, 'postgresql.conf'), settings(primaryPort));
    appendFileSync(join(primaryDir, 'pg_hba.conf'), 'host replication postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n');
    await pg('pg_ctl', ['-D', primaryDir, '-l', join(dir, 'primary.log'), '-w', 'start']);
    started = [primaryDir];
    const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/${database}`;
    const admin = new Client({ connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();

    await pg('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
      '--checkpoint=fast',
    ]);
    appendFileSync(join(replicaDir, 'postgresql.conf'), `${settings(replicaPort)}hot_standby = on\nrecovery_min_apply_delay = '${options.applyDelayMs}ms'\n`);
    await pg('pg_ctl', ['-D', replicaDir, '-l', join(dir, 'replica.log'), '-w', 'start']);
    started = [replicaDir, primaryDir];
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/${database}`;

    const query = async (url: string, sql: string) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ lsn: string | null; replayed?: boolean }>(sql)).rows[0];
      } finally {
        await client.end();
      }
    };
    return {
      primaryUrl,
      replicaUrl,
      caughtUp: async (timeoutMs = 30_000) => {
        // A commit of our own, so the replay position moves past everything written before (the delay applies to commits).
        const { lsn } = await query(primaryUrl, `SELECT txid_current(), pg_current_wal_insert_lsn()::text AS lsn`);
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const row = await query(replicaUrl, `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS replayed, NULL AS lsn`).catch(() => undefined);
          if (row?.replayed) return;
          if (Date.now() > deadline) throw new Error(`the replica did not replay ${lsn} within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      stopReplica: async () => {
        await pg('pg_ctl', ['-D', replicaDir, '-m', 'fast', '-w', 'stop']);
        started = started.filter((entry) => entry !== replicaDir);
      },
      destroy: async () => {
        for (const dataDir of started) await stop(dataDir);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const dataDir of started) await stop(dataDir);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
