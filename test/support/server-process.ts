import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { directEnv } from './database';

export const ROOT = join(__dirname, '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string | null>;
  /** Resolves once the output contains `text`; rejects if the process exits first or time runs out. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  /** SIGKILL to the whole process group: clean-up after a test, pass or fail. */
  kill(): void;
}

/**
 * Starts the server as a separate process, as an operator would: from the TypeScript sources
 * (`node -r @swc-node/register src/main.ts`, the default) or with the README's `npm start`.
 * `cwd` lets a test run it from another directory (to read that directory's `.env`).
 */
export function spawnServer(env: Record<string, string>, options: { npmStart?: boolean; cwd?: string } = {}): ServerProcess {
  // Its own process group, so `kill()` can end everything it spawned even when a signal is not forwarded.
  const child = options.npmStart
    ? spawn('npm', ['start'], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...directEnv(env.DATABASE_URL), ...env }, detached: true })
    : spawn(process.execPath, ['-r', require.resolve('@swc-node/register'), join(ROOT, 'src', 'main.ts')], {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), ...directEnv(env.DATABASE_URL), ...env },
        detached: true,
      });
  let output = '';
  const streams = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    output += chunk.toString();
    streams[stream] += chunk.toString();
    listeners.forEach((listener) => listener());
  };
  child.stdout?.on('data', collect('stdout'));
  child.stderr?.on('data', collect('stderr'));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));

  const waitFor = (text: string, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!output.includes(text)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`"${text}" did not appear within ${timeoutMs} ms:\n${output}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      void exited.then((code) => {
        if (!listeners.has(check)) return;
        done();
        reject(new Error(`server exited (${code}) before "${text}":\n${output}`));
      });
      listeners.add(check);
      check();
    });

  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return { child, output: () => output, stdout: () => streams.stdout, stderr: () => streams.stderr, exited, waitFor, kill };
}

/** Whether a process with this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `condition` every 50 ms until it holds or `timeoutMs` passes; resolves to whether it held. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}
