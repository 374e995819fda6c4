import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { readdir, readFile } from 'node:fs/promises';
import type { Miniflare } from 'miniflare';
import { AppConfig } from '../../../config/app-config';
import type { TraceLog } from '../integration.read-model';
import { FETCH_MODULE, WRAPPER_MODULE } from './script-wrapper';

/** What a script answered (its HTTP response to the dispatcher) and what it printed. */
export interface ScriptResult {
  status: number;
  headers: [string, string][];
  body: Buffer;
  logs: TraceLog[];
}

/** Why a call ended without an answer: the `message` goes to the event, the kind to tests and logs. */
export class ScriptFailure extends Error {
  constructor(
    readonly kind: 'timeout' | 'memory' | 'after-answer' | 'too-large' | 'crashed' | 'threw',
    message: string,
    readonly logs: TraceLog[] = [],
  ) {
    super(message);
  }
}

export interface ScriptSource {
  /**
   * One instance per key: the integration id, its version and the calling installation's organization,
   * so a republish starts a fresh instance and no organization's call shares a process (and its globals) with another's.
   */
  key: string;
  script: string;
}

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** Wall time after an answer during which the process may keep working (`ctx.waitUntil`). */
  afterAnswerMs: number;
  requestBytes: number;
  responseBytes: number;
  maxInstances: number;
}

/** Pluggable `fetch` for the scripts (the guarded outbound client). */
export type ScriptOutbound = (request: Request) => Promise<Response>;

/** Why the watcher stopped a process, for logs, tests and the benchmark. */
export interface SandboxStop {
  key: string;
  pid: number | undefined;
  reason: 'timeout' | 'memory' | 'after-answer' | 'exited';
  at: number;
}

interface Instance {
  key: string;
  mf: Miniflare;
  pid: number | undefined;
  /** Calls run one at a time per instance: a stuck call is the only one the watchdog ends. */
  queue: Promise<unknown>;
  lastUsed: number;
  disposed: boolean;
  /** Whether a call is in flight, and when the last one was answered. */
  busy: boolean;
  answeredAt: number;
  /** CPU time (user + system, in clock ticks) at the watcher's last sample. */
  cpuTicks: number | undefined;
  /** CPU ticks used since the after-answer budget of the last answer ran out (reset by each call). */
  idleTicks: number;
  watcher: NodeJS.Timeout | undefined;
  /** Ends the call in flight with the watcher's reason. */
  abort?: (failure: ScriptFailure) => void;
}

/** How often the watcher samples each process's RSS and CPU time. */
const WATCH_MS = 200;
/** Linux's USER_HZ: `/proc/<pid>/stat` counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;
/** CPU time within one sample above which a process past its after-answer budget counts as still working (25%). */
const BUSY_TICKS_PER_SAMPLE = Math.max(1, Math.round((WATCH_MS / 1000) * TICKS_PER_SECOND * 0.25));
/**
 * CPU time a process may use in all once its after-answer budget ran out: 100 ms plus 2% of the time since
 * (an idle workerd uses next to none), so work that trickles (a little CPU per sample) is stopped too.
 */
const IDLE_TICKS_ALLOWED = (msSinceBudget: number) => 10 + ((msSinceBudget / 1000) * TICKS_PER_SECOND) / 50;

/**
 * Runs integration scripts in workerd (through miniflare), never in the server's V8 context. Each
 * integration version gets its own workerd process per calling organization, so a script that loops
 * forever or allocates without bound stalls only itself, and what one organization's call leaves in
 * the script's globals is never seen by another organization's call.
 *
 * Limits hold for the whole life of the process, not only during a call. A watcher samples each
 * process every `WATCH_MS` from /proc (RSS from `status`, CPU time from `stat`) while it lives:
 * - RSS above `memoryBytes`, at any time: killed;
 * - a call not answered within `timeoutMs`: killed;
 * - after an answer, work in `ctx.waitUntil` gets `afterAnswerMs` of wall time; a process still using
 *   CPU past it (more than a quarter of a core over one sample) is killed.
 * A killed process is restarted by the next call. At most `maxInstances` processes live at once
 * (least recently used closed first).
 */
@Injectable()
export class ScriptSandbox implements OnApplicationShutdown {
  private readonly logger = new Logger('ScriptSandbox');
  private readonly instances = new Map<string, Instance>();
  /** The last stops by the watcher (newest last), for tests and the benchmark. */
  readonly stops: SandboxStop[] = [];
  private starting: Promise<unknown> = Promise.resolve();
  private outbound: ScriptOutbound = () => Promise.resolve(new Response('outbound fetch is not configured', { status: 502 }));
  readonly limits: SandboxLimits;

  constructor(config: AppConfig) {
    this.limits = config.integrations.sandbox;
  }

  /** Sets where the scripts' `fetch` goes (the integrations module passes the guarded client). */
  useOutbound(outbound: ScriptOutbound): void {
    this.outbound = outbound;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.instances.values()].map((instance) => this.dispose(instance)));
  }

  /** Instances alive now (for tests and the benchmark). */
  get size(): number {
    return this.instances.size;
  }

  /** The workerd processes alive now, by key (for tests and the benchmark). */
  processes(): { key: string; pid: number | undefined }[] {
    return [...this.instances.values()].map((instance) => ({ key: instance.key, pid: instance.pid }));
  }

  /** Ends an integration's instance (on republish and unpublish). */
  async evict(keyPrefix: string): Promise<void> {
    await Promise.all([...this.instances.values()].filter((i) => i.key.startsWith(keyPrefix)).map((i) => this.dispose(i)));
  }

  /** POSTs `body` (a multipart form) to the script's `/v1` and returns its answer. */
  async call(source: ScriptSource, body: Buffer, contentType: string): Promise<ScriptResult> {
    if (body.length > this.limits.requestBytes) {
      throw new ScriptFailure('too-large', `the request to the script is larger than ${this.limits.requestBytes} bytes`);
    }
    const instance = await this.instanceFor(source);
    // The watcher may have killed the process while this call waited its turn: the call then gets a fresh one.
    const run = instance.queue.then(async () => this.dispatch(instance.disposed ? await this.instanceFor(source) : instance, body, contentType));
    instance.queue = run.catch(() => undefined);
    return run;
  }

  private async dispatch(instance: Instance, body: Buffer, contentType: string): Promise<ScriptResult> {
    if (instance.disposed) throw new ScriptFailure('crashed', 'the script instance was stopped');
    instance.lastUsed = Date.now();
    instance.busy = true;
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ScriptFailure('timeout', `the script did not answer within ${this.limits.timeoutMs} ms`)), this.limits.timeoutMs);
      instance.abort = reject;
    });
    try {
      const response = await Promise.race([
        instance.mf.dispatchFetch('http://integration.quire.internal/v1', { method: 'POST', body, headers: { 'content-type': contentType } }),
        watchdog,
      ]);
      const text = await Promise.race([response.text(), watchdog]);
      if (text.length > this.limits.responseBytes * 1.4) {
        throw new ScriptFailure('too-large', `the script's answer is larger than ${this.limits.responseBytes} bytes`);
      }
      const envelope = JSON.parse(text) as { status?: number; headers?: [string, string][]; body?: string; logs: TraceLog[]; error?: string };
      if (envelope.error !== undefined) throw new ScriptFailure('threw', `the script threw: ${envelope.error.slice(0, 2000)}`, envelope.logs);
      const answer = Buffer.from(envelope.body ?? '', 'base64');
      if (answer.length > this.limits.responseBytes) {
        throw new ScriptFailure('too-large', `the script's answer is larger than ${this.limits.responseBytes} bytes`, envelope.logs);
      }
      return { status: envelope.status ?? 500, headers: envelope.headers ?? [], body: answer, logs: envelope.logs };
    } catch (error) {
      if (error instanceof ScriptFailure) {
        if (error.kind === 'timeout' || error.kind === 'memory') {
          this.logger.warn({ msg: 'script stopped by the watchdog', key: instance.key, reason: error.kind });
          this.recordStop(instance, error.kind);
          await this.dispose(instance);
        }
        throw error;
      }
      // workerd died or answered something that is not our envelope: start afresh next time.
      await this.dispose(instance);
      throw new ScriptFailure('crashed', `the script's runtime failed: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      instance.abort = undefined;
      instance.busy = false;
      instance.answeredAt = Date.now();
    }
  }

  /**
   * One sample of a process: RSS over the limit at any time, or CPU still burning once the
   * after-answer budget is spent, kills it (a call in flight is ended with the reason).
   */
  private async watch(instance: Instance): Promise<void> {
    if (instance.disposed || !instance.pid) return;
    const [stat, status] = await Promise.all([
      readFile(`/proc/${instance.pid}/stat`, 'utf8').catch(() => ''),
      readFile(`/proc/${instance.pid}/status`, 'utf8').catch(() => ''),
    ]);
    if (instance.disposed) return;
    if (!stat) {
      this.recordStop(instance, 'exited');
      await this.dispose(instance);
      return;
    }
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const used = instance.cpuTicks === undefined ? 0 : ticks - instance.cpuTicks;
    instance.cpuTicks = ticks;
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    const rss = kb ? Number(kb) * 1024 : 0;
    if (rss > this.limits.memoryBytes) {
      await this.stop(instance, new ScriptFailure('memory', `the script used more than ${Math.round(this.limits.memoryBytes / 1048576)} MB of memory`));
      return;
    }
    const sinceBudget = Date.now() - instance.answeredAt - this.limits.afterAnswerMs;
    if (instance.busy || sinceBudget <= 0) {
      instance.idleTicks = 0;
      return;
    }
    instance.idleTicks += used;
    if (used >= BUSY_TICKS_PER_SAMPLE || instance.idleTicks > IDLE_TICKS_ALLOWED(sinceBudget)) {
      await this.stop(instance, new ScriptFailure('after-answer', `the script kept working more than ${this.limits.afterAnswerMs} ms after its answer`));
    }
  }

  private async stop(instance: Instance, failure: ScriptFailure): Promise<void> {
    if (instance.abort) {
      instance.abort(failure); // the call's own error path logs, records and disposes
      return;
    }
    this.logger.warn({ msg: 'script stopped by the watcher', key: instance.key, reason: failure.kind });
    this.recordStop(instance, failure.kind as SandboxStop['reason']);
    await this.dispose(instance);
  }

  private recordStop(instance: Instance, reason: SandboxStop['reason']): void {
    this.stops.push({ key: instance.key, pid: instance.pid, reason, at: Date.now() });
    if (this.stops.length > 50) this.stops.shift();
  }

  private async instanceFor(source: ScriptSource): Promise<Instance> {
    const existing = this.instances.get(source.key);
    if (existing && !existing.disposed) return existing;
    // Started one at a time, so the new workerd process is the one child we did not know before.
    const started = this.starting.then(() => this.start(source));
    this.starting = started.catch(() => undefined);
    return started;
  }

  private async start(source: ScriptSource): Promise<Instance> {
    const existing = this.instances.get(source.key);
    if (existing && !existing.disposed) return existing;
    while (this.instances.size >= this.limits.maxInstances) {
      const oldest = [...this.instances.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0];
      await this.dispose(oldest);
    }
    const before = new Set(await this.workerdChildren());
    const signalHandlers = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
    const { Log, LogLevel, Miniflare } = loadMiniflare();
    const mf = new Miniflare({
      modulesRoot: '/integration',
      modules: [
        { type: 'ESModule', path: '/integration/main.mjs', contents: WRAPPER_MODULE },
        { type: 'ESModule', path: '/integration/quire-fetch.mjs', contents: FETCH_MODULE },
        { type: 'ESModule', path: '/integration/integration.mjs', contents: source.script.replace(/\/\/# sourceMappingURL=\S*\s*$/, '') },
      ],
      compatibilityDate: '2024-09-23',
      cf: false,
      log: new Log(LogLevel.ERROR),
      outboundService: (request: unknown) => this.outbound(request as Request) as never,
    });
    keepOwnSignalHandlers(signalHandlers);
    try {
      await mf.ready;
    } catch (error) {
      await mf.dispose().catch(() => undefined);
      throw new ScriptFailure('crashed', `the script could not be loaded: ${(error as Error).message}`);
    }
    const pid = (await this.workerdChildren()).find((candidate) => !before.has(candidate));
    const instance: Instance = {
      key: source.key,
      mf,
      pid,
      queue: Promise.resolve(),
      lastUsed: Date.now(),
      disposed: false,
      busy: false,
      answeredAt: Date.now(),
      cpuTicks: undefined,
      idleTicks: 0,
      watcher: undefined,
    };
    let sampling = false;
    instance.watcher = setInterval(() => {
      if (sampling) return;
      sampling = true;
      void this.watch(instance)
        .catch((error: unknown) => this.logger.debug({ msg: 'watch failed', err: error }))
        .finally(() => (sampling = false));
    }, WATCH_MS);
    instance.watcher.unref();
    this.instances.set(source.key, instance);
    return instance;
  }

  private async dispose(instance: Instance): Promise<void> {
    if (instance.disposed) return;
    instance.disposed = true;
    clearInterval(instance.watcher);
    if (this.instances.get(instance.key) === instance) this.instances.delete(instance.key);
    // dispose() asks workerd to stop; a process stuck in a loop may not listen, so kill it too.
    if (instance.pid) {
      try {
        process.kill(instance.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await instance.mf.dispose().catch((error: unknown) => this.logger.debug({ msg: 'dispose failed', err: error }));
  }

  /** Pids of this process's workerd children (miniflare spawns one per instance). */
  private async workerdChildren(): Promise<number[]> {
    const pids: number[] = [];
    for (const entry of await readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (match && match[1] === 'workerd' && Number(match[2]) === process.pid) pids.push(Number(entry));
    }
    return pids;
  }
}

/**
 * miniflare (and undici, workerd's bindings) is loaded on the first script start, not with the module: it costs
 * most of a second of CPU, and every server start and test file would pay it though few ever run a script.
 */
let miniflareModule: typeof import('miniflare') | undefined;
function loadMiniflare(): typeof import('miniflare') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (miniflareModule ??= require('miniflare') as typeof import('miniflare'));
}

/**
 * Miniflare's exit hook answers SIGTERM and SIGINT with `process.exit(143 | 130)` at once, which would
 * cut the server's graceful shutdown (in-flight requests dropped, exit code 143) once any script has
 * run. The server's own shutdown disposes every instance (`onApplicationShutdown`), and miniflare's `exit`
 * hook still stops workerd at exit, so its signal handlers are taken back off as they are added.
 */
function keepOwnSignalHandlers(before: { SIGTERM: NodeJS.SignalsListener[]; SIGINT: NodeJS.SignalsListener[] }): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.removeListener(signal, listener);
  }
}
