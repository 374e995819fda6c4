import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/common/free-port';

export interface PgBouncer {
  /** `server`'s URL with PgBouncer's port: same user, same database name. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Debian's PgBouncer (`apt-get install pgbouncer`), or undefined when it is not installed. */
export function findPgBouncer(): string | undefined {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']) if (existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/**
 * Starts PgBouncer in transaction mode in front of `server` (a postgres:// URL; every database name is
 * passed through), on a free loopback port, with a temporary configuration. Authentication is PgBouncer's
 * `trust` for the URL's user (the test cluster trusts loopback). As root it runs as `postgres`: PgBouncer
 * refuses root.
 */
export async function startPgBouncer(server: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = findPgBouncer();
  if (!binary) throw new Error('pgbouncer is not installed (Debian: apt-get install -y pgbouncer)');
  const target = new URL(server);
  const user = decodeURIComponent(target.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'quire-pgbouncer-'));
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${user}" "${decodeURIComponent(target.password)}"\n`);
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      // pg sends extra_float_digits; `options` is a startup parameter PgBouncer does not forward.
      'ignore_startup_parameters = extra_float_digits,options',
      'server_reset_query =',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const root = userInfo().uid === 0;
  if (root) {
    const postgres = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(postgres.stdout.trim());
    for (const file of [dir, config, join(dir, 'users.txt')]) chownSync(file, uid, uid);
  }
  const child = spawn(binary, [...(root ? ['-u', 'postgres'] : []), config], { stdio: 'ignore', detached: true });
  child.unref();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, 10_000, exited);
  } catch (error) {
    child.kill('SIGKILL');
    const log = existsSync(join(dir, 'pgbouncer.log')) ? readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000) : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
  const url = new URL(server);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    stop: async () => {
      // SIGINT: PgBouncer's safe shutdown (waits for transactions in flight); then the files go.
      // Held again while it stops (unref'd while it runs, so it never keeps a test process alive).
      child.ref();
      if (child.exitCode === null) child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, timeoutMs: number, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error('it exited');
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listened on ${port} after ${timeoutMs} ms`);
}
