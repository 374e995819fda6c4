import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/common/free-port';
import { TEST_DATABASE_URL } from '../support/database';
import { eventually, isAlive, ServerProcess, spawnServer } from '../support/server-process';

/**
 * The server as a newcomer starts it: `npm start` and SIGTERM, a `.env` file, and the start-up
 * mistakes that must each end in one readable line (exit 1) rather than stack traces.
 */
describe('start-up and stop', () => {
  const started: ServerProcess[] = [];
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    chmodSync(dir, 0o755); // as root, the embedded PostgreSQL runs as `postgres` and must reach its directory
    dirs.push(dir);
    return dir;
  };
  const start = (...args: Parameters<typeof spawnServer>) => {
    const server = spawnServer(...args);
    started.push(server);
    return server;
  };
  afterAll(() => {
    for (const server of started) server.kill();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const testDatabase = () => process.env[TEST_DATABASE_URL] as string;

  it('`npm start` serves on the embedded database, and SIGTERM to it stops the server and PostgreSQL within 5 s', async () => {
    const dataDir = tempDir('quire-start-');
    const port = await freePort();
    const server = start({ DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }, { npmStart: true });
    await server.waitFor('Quire listening', 90_000);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);

    const stoppedAt = Date.now();
    server.child.kill('SIGTERM'); // the pid a supervisor or a terminal holds: npm's
    const down = await eventually(async () => {
      const listening = await fetch(`http://127.0.0.1:${port}/health/live`).then(
        () => true,
        () => false,
      );
      return !listening && !isAlive(postmaster);
    }, 5_000);
    expect(down).toBe(true);
    await server.exited;
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(server.output()).toMatch(/"msg":"stopped"/);
  }, 120_000);

  describe('a port already in use', () => {
    let blocker: Server;
    afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('answers with one line and leaves no embedded PostgreSQL running', async () => {
      const port = await freePort();
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
      const dataDir = tempDir('quire-port-');
      const server = start({ DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
      expect(await server.exited).toBe(1);
      expect(server.output().trim()).toBe(`Cannot start: port ${port} on 127.0.0.1 is already in use. Stop the other process or set PORT.`);
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    }, 60_000);
  });

  it('says in one line what is wrong with the database URL or PORT', async () => {
    const base = new URL(testDatabase());
    const withPath = (path: string) => Object.assign(new URL(base), { pathname: path }).toString();
    const closedPort = await freePort();
    // The test database's own address: 127.0.0.1:5432 in CI, the embedded cluster's port when DATABASE_URL is unset.
    const at = `${base.hostname}:${base.port || 5432}`.replace(/\./g, '\\.');
    const cases: { env: Record<string, string>; line: RegExp }[] = [
      {
        env: { DATABASE_URL: withPath('/quire_missing_db') },
        line: new RegExp(
          `^Cannot start: database "quire_missing_db" does not exist on ${at}\\. Create it \\(createdb .*quire_missing_db\\), or unset DATABASE_URL to use the embedded PostgreSQL under DATA_DIR\\.$`,
        ),
      },
      {
        env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/quire` },
        line: new RegExp(`^Cannot start: no PostgreSQL reachable on 127\\.0\\.0\\.1:${closedPort} \\(ECONNREFUSED\\)\\. `),
      },
      {
        env: { DATABASE_URL: Object.assign(new URL(base), { username: 'quire_no_such_role', password: 'wrong' }).toString() },
        line: new RegExp(`^Cannot start: PostgreSQL on ${at} refused user "quire_no_such_role" \\(.+\\)\\. Fix the user name and password in DATABASE_URL\\.$`),
      },
      { env: { PORT: 'abc' }, line: /^Invalid environment variable PORT: must be an integer number \(got "abc"\)$/ },
      { env: { PORT: '70000' }, line: /^Invalid environment variable PORT: must not be greater than 65535 \(got "70000"\)$/ },
    ];
    // A free port each: a server of another test file on the default port would make each run report that port instead.
    const ports = await Promise.all(cases.map(() => freePort()));
    const runs = cases.map(({ env }, index) => start({ DATABASE_URL: testDatabase(), LOG_LEVEL: 'info', PORT: String(ports[index]), ...env }));
    for (const [index, run] of runs.entries()) {
      expect(await run.exited).toBe(1);
      const lines = run.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(cases[index].line);
      expect(lines[0]).not.toContain('wrong'); // never the password
    }
  }, 60_000);

  it('reads .env from the working directory, and the environment wins over the file', async () => {
    const cwd = tempDir('quire-dotenv-');
    const port = await freePort();
    writeFileSync(join(cwd, '.env'), `PORT=${port}\nHOST=127.0.0.1\nPUBLIC_URL=http://from-file.test\nMIGRATIONS_RUN=false\n`);
    // No job workers: jobs the worker's earlier test files left in its database are not this test's, and one still
    // running would hold the shutdown up to its timeout (exit 1).
    const server = start({ DATABASE_URL: testDatabase(), PUBLIC_URL: 'http://from-env.test', LOG_LEVEL: 'info', JOBS_ENABLED: 'false' }, { cwd });
    await server.waitFor('Quire listening');
    expect(server.output()).toContain('Quire listening on http://from-env.test');
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    server.child.kill('SIGTERM');
    const code = await server.exited;
    // The server's own lines when it does not stop cleanly (why it did not is in them).
    expect({ code, output: code === 0 ? '' : server.output() }).toEqual({ code: 0, output: '' });
  }, 60_000);
});
