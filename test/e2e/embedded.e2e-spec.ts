import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliProcess as runCli } from '../support/run-cli';
import { spawnServer } from '../support/server-process';

/**
 * The zero-install path: no DATABASE_URL, the server runs its own PostgreSQL under DATA_DIR,
 * the CLI shares it while the server runs, and SIGTERM stops both cleanly.
 */
describe('embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-embedded-'));
  chmodSync(dataDir, 0o755); // when run as root, PostgreSQL runs as the `postgres` user and must reach its directory
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  let server: ChildProcess | undefined;

  afterAll(() => {
    server?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startServer() {
    const started = spawnServer({ ...env, DATABASE_URL: '', PORT: '47311' });
    await started.waitFor('Quire listening');
    return { process: started.child, port: 47311, logs: started.output };
  }

  it('serves /health/ready with no DATABASE_URL, shares the database with the CLI, and shuts down on SIGTERM', async () => {
    const started = await startServer();
    server = started.process;
    const ready = await fetch(`http://127.0.0.1:${started.port}/health/ready`);
    expect(ready.status).toBe(200);

    const cli = await runCli(['bootstrap', '--org', 'Embedded Org', '--email', 'embedded@example.com'], { ...env, DATABASE_URL: '', LOG_LEVEL: 'silent' });
    expect(cli.stderr).toMatch(/already running/);
    expect(cli.code).toBe(0);
    const { token } = JSON.parse(cli.stdout);
    const me = await fetch(`http://127.0.0.1:${started.port}/v1/user`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);

    const postmasterPid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const exit = new Promise<number | null>((resolve) => started.process.on('exit', (code) => resolve(code)));
    started.process.kill('SIGTERM');
    expect(await exit).toBe(0);
    server = undefined;
    expect(started.logs()).toMatch(/"msg":"stopped"/);
    expect(() => process.kill(postmasterPid, 0)).toThrow(); // the embedded PostgreSQL is gone too

    // With no server running, the CLI starts the database itself (and stops it again).
    const alone = await runCli(['token:create', '--email', 'embedded@example.com'], { ...env, DATABASE_URL: '', LOG_LEVEL: 'silent' });
    expect(alone.code).toBe(0);
    expect(alone.stderr).toMatch(/embedded PostgreSQL started/);
    expect(JSON.parse(alone.stdout).token).toMatch(/^quire_/);
  }, 120_000);

  it('lets two processes starting at once share one data directory instead of opening it twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quire-race-'));
    // Traversable only (711), not readable: enough for the postgres user to reach its subdirectory.
    chmodSync(dir, 0o711);
    try {
      const raceEnv = { DATABASE_URL: '', DATA_DIR: dir, LOG_LEVEL: 'silent' };
      const [a, b] = await Promise.all([runCli(['migration:run'], raceEnv), runCli(['migration:run'], raceEnv)]);
      // Each exited 0 (else what it printed, to see why).
      expect([a, b].map((run) => (run.code === 0 ? 0 : `${run.code}: ${run.stderr.slice(-1500)}`))).toEqual([0, 0]);
      // One initialised the cluster; the other waited for it and either joined it or started it again.
      expect([a.stderr, b.stderr].filter((text) => text.includes('initialising'))).toHaveLength(1);
      const applied = [JSON.parse(a.stdout).applied, JSON.parse(b.stdout).applied];
      expect(applied.flat().length).toBeGreaterThan(0);
      expect(applied.some((names: string[]) => names.length === 0)).toBe(true);
      // The last one out stopped the cluster: nothing is left running on the directory.
      expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  /** Runs the server to its exit (it is expected to refuse to start), collecting its output. */
  async function runServerToExit(extraEnv: Record<string, string>): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
    const server = spawnServer({ DATABASE_URL: '', PORT: '47312', LOG_LEVEL: 'info', ...extraEnv });
    const timer = setTimeout(() => server.kill(), 60_000);
    const code = await server.exited;
    clearTimeout(timer);
    return { code, stdout: server.stdout(), stderr: server.stderr() };
  }

  const asRoot = process.getuid?.() === 0 ? it : it.skip;

  asRoot(
    'refuses a DATA_DIR the postgres user cannot enter (mktemp -d: mode 700, owned by root) with one line naming DATA_DIR and the fix',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'quire-private-')); // mode 700, like mktemp -d
      try {
        const { code, stdout, stderr } = await runServerToExit({ DATA_DIR: dir });
        expect(code).toBe(1);
        const lines = stderr.split('\n').filter((line) => line.trim() !== '');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`DATA_DIR=${dir}`);
        expect(lines[0]).toContain(`cannot enter ${dir} (mode 700, owner root)`);
        expect(lines[0]).toContain(`Fix: chmod o+x ${dir}`);
        expect(stdout).not.toMatch(/initialising/); // refused before initdb ran
        expect(existsSync(join(dir, 'postgres'))).toBe(false);

        // A DATA_DIR below such a directory names the directory that blocks.
        const nested = join(dir, 'quire', 'data');
        const again = await runServerToExit({ DATA_DIR: nested });
        expect(again.code).toBe(1);
        expect(again.stderr.trim().split('\n')).toEqual([expect.stringContaining(`DATA_DIR=${nested} cannot be used by the embedded PostgreSQL`)]);
        expect(again.stderr).toContain(`cannot enter ${dir} (mode 700`);
        // A directory made traversable (711) works: the test above (two processes sharing one) runs in one.
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
