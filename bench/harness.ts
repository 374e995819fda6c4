import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export { freePort } from '../src/common/free-port';

export const ROOT = join(__dirname, '..');

export interface Server {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server process on `port` and resolves once it answers HTTP at all. */
export async function startProcess(args: string[], env: Record<string, string | undefined>, port: number): Promise<Server> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (
    !(await fetch(url).then(
      () => true,
      () => false,
    ))
  ) {
    if (exited !== undefined) throw new Error(`${args.join(' ')} exited with ${exited}`);
    if (Date.now() - started > 120_000) throw new Error(`${args.join(' ')} did not start in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url,
    process: child,
    stop: () =>
      new Promise((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

export interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Loopback load with autocannon: bounded in time, stops by itself. `request`: another method and a body (JSON). */
export async function load(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  connections = 10,
  request?: { method: 'PATCH' | 'POST' | 'PUT'; body: unknown },
): Promise<Figures> {
  const result = await autocannon({
    url,
    headers: request ? { ...headers, 'content-type': 'application/json' } : headers,
    duration: seconds,
    connections,
    pipelining: 1,
    ...(request ? { method: request.method, body: JSON.stringify(request.body) } : {}),
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * One table row from alternating rounds (Quire, bare, Quire, bare…): the median of each figure, and
 * the median of the per-round ratios, which a shared machine's drift between rounds does not skew.
 */
export function row(name: string, quire: Figures[], bare: Figures[]): string {
  const ratios = quire.map((q, round) => q.requestsPerSecond / bare[round].requestsPerSecond);
  const m = (figures: Figures[], key: 'requestsPerSecond' | 'p50' | 'p99') => Math.round(median(figures.map((f) => f[key])));
  return `| ${name} | ${m(quire, 'requestsPerSecond')} | ${m(quire, 'p50')} | ${m(quire, 'p99')} | ${m(bare, 'requestsPerSecond')} | ${m(bare, 'p50')} | ${m(bare, 'p99')} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) |`;
}
