/**
 * `npm run test:pgbouncer [-- <jest arguments>]`: the e2e suite (or the suites named by
 * `--testPathPatterns`) through PgBouncer in transaction mode, as an operator pooling Quire would run it.
 * PgBouncer starts with a temporary configuration in front of DATABASE_URL's server (default
 * postgres://postgres@127.0.0.1:5432/postgres); the tests' DATABASE_URL becomes PgBouncer's, with
 * DATABASE_PREPARED_STATEMENTS=false, and the server itself is the tests' DATABASE_DIRECT_URL
 * (test/support/database.ts, `directEnv`). Exits with jest's code; 1 with one line when pgbouncer is missing.
 */
import { spawn } from 'node:child_process';
import { findPgBouncer, startPgBouncer } from '../test/support/pgbouncer';
import { TEST_DIRECT_SERVER } from '../test/support/database';

async function main(): Promise<number> {
  if (!findPgBouncer()) {
    process.stderr.write('test:pgbouncer: pgbouncer is not installed (Debian: apt-get install -y pgbouncer); nothing ran.\n');
    return 1;
  }
  const server = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const bouncer = await startPgBouncer(server);
  process.stderr.write(`test:pgbouncer: PgBouncer (transaction mode) on 127.0.0.1:${bouncer.port} in front of ${new URL(server).host}\n`);
  try {
    // Two files at a time, each on its own database copy (as `npm test`), unless the arguments say otherwise.
    const given = process.argv.slice(2);
    const workers = given.some((arg) => /^(--maxWorkers|--runInBand|-w|-i)(=|\d|$)/.test(arg)) ? [] : ['--maxWorkers=2'];
    const args = ['jest', '--selectProjects', 'e2e', ...workers, ...given];
    const child = spawn('npx', args, {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: bouncer.url, [TEST_DIRECT_SERVER]: server, DATABASE_PREPARED_STATEMENTS: 'false' },
    });
    const stop = () => child.kill('SIGINT');
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await bouncer.stop();
  }
}

main().then(
  (code) => {
    process.stderr.write(`test:pgbouncer: jest exited with ${code}\n`);
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`test:pgbouncer: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
