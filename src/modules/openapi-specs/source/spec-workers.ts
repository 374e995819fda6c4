import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { OpenApiRenderProps } from '../render/openapi-markdown';
import { SourceFile, SpecDocumentError } from './spec-documents';
import type { ParsedSpecFile, SpecJob, SpecJobAnswer } from './spec.worker';

/** A job running longer than this is stopped (its worker restarted) and refused. */
export const SPEC_JOB_TIMEOUT_MS = 60_000;
/** Heap of each worker: a 5 MB document dereferenced takes a few hundred MB. */
const WORKER_HEAP_MB = 2048;
/**
 * Workers at most: two, so a render is not stuck behind one long validation, and never more than
 * the cores (the event loop keeps one for itself only when there are more than two).
 */
export const SPEC_WORKERS = Math.max(1, Math.min(2, availableParallelism()));

type JobBody = SpecJob;

interface Job {
  body: JobBody;
  resolve: (answer: SpecJobAnswer) => void;
  reject: (error: Error) => void;
}

interface Running {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The OpenAPI module's CPU work, off the server's event loop: parsing a source's files (a 5 MB
 * YAML takes seconds), validating a source (parse, `$ref`
 * checks, the parser's validation: seconds for a 5 MB document) and rendering a computed page
 * (parsing the stored filesystem and generating its markdown: 1.5–3 s for a 5 MB spec). On the
 * main thread either would stall every other request of the replica.
 *
 * A small bounded pool (SPEC_WORKERS), started on demand, one job per worker at a time, the rest
 * waiting in order. A job that runs longer than SPEC_JOB_TIMEOUT_MS, or a worker that dies, is
 * refused and its worker replaced.
 */
@Injectable()
export class SpecWorkers implements OnApplicationShutdown {
  private readonly logger = new Logger(SpecWorkers.name);
  private readonly running: Running[] = [];
  private readonly queue: Job[] = [];
  private closed = false;

  /** Parses one file (JSON or YAML) and finds its `$ref`s; rejects with a SpecDocumentError when it does not parse. */
  async parse(text: string, name: string): Promise<ParsedSpecFile> {
    const answer = await this.run({ kind: 'parse', text, name });
    return answer.parsed as ParsedSpecFile;
  }

  /** Resolves when the files form a valid specification; rejects with a SpecDocumentError naming the problem. */
  async validate(files: SourceFile[]): Promise<void> {
    await this.run({ kind: 'validate', files });
  }

  /** The markdown of a computed page: `filesystem` is the stored filesystem as JSON text (parsed in the worker). */
  async render(filesystem: string, props: OpenApiRenderProps): Promise<string> {
    const answer = await this.run({ kind: 'render', filesystem, props });
    return answer.markdown ?? '';
  }

  /** Workers started and jobs waiting (for tests and the bench). */
  stats(): { workers: number; busy: number; waiting: number } {
    return { workers: this.running.length, busy: this.running.filter((entry) => entry.job).length, waiting: this.queue.length };
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const running = this.running.splice(0);
    for (const job of this.queue.splice(0)) job.reject(new Error('the server is shutting down'));
    for (const entry of running) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.job?.reject(new Error('the server is shutting down'));
    }
    await Promise.all(running.map((entry) => entry.worker.terminate()));
  }

  private run(body: JobBody): Promise<SpecJobAnswer> {
    if (this.closed) return Promise.reject(new Error('the server is shutting down'));
    return new Promise<SpecJobAnswer>((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      this.dispatch();
    });
  }

  /** Gives waiting jobs to idle workers, starting workers up to the bound. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.running.find((entry) => !entry.job) ?? (this.running.length < SPEC_WORKERS ? this.start() : undefined);
      if (!idle) return;
      this.assign(idle, this.queue.shift() as Job);
    }
  }

  private assign(entry: Running, job: Job): void {
    entry.job = job;
    entry.worker.ref();
    entry.timer = setTimeout(() => {
      this.logger.warn(`OpenAPI ${job.body.kind} stopped after ${SPEC_JOB_TIMEOUT_MS} ms; restarting its worker`);
      this.fail(entry, new SpecDocumentError(`The specification took longer than ${SPEC_JOB_TIMEOUT_MS / 1000} s to ${job.body.kind}`));
    }, SPEC_JOB_TIMEOUT_MS);
    const message: SpecJob = { ...job.body };
    entry.worker.postMessage(message);
  }

  private start(): Running {
    // Built: the compiled .js beside this file. From the sources (tests, `npm run cli`): the .ts, compiled on load.
    const file = join(__dirname, `spec.worker${extname(__filename)}`);
    const worker = new Worker(file, {
      execArgv: file.endsWith('.ts') ? ['--require', '@swc-node/register'] : [],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const entry: Running = { worker, job: undefined, timer: undefined };
    worker.on('message', (answer: SpecJobAnswer) => {
      const job = entry.job;
      if (!job) return;
      this.settle(entry);
      if (answer.ok) job.resolve(answer);
      else job.reject(answer.invalid ? new SpecDocumentError(answer.message ?? 'invalid') : new Error(`OpenAPI ${job.body.kind} failed: ${answer.message}`));
      this.dispatch();
    });
    worker.on('error', (error) => this.fail(entry, error));
    worker.on('exit', (code) => this.fail(entry, new Error(`an OpenAPI worker exited with code ${code}`)));
    // An idle worker does not keep the process alive.
    worker.unref();
    this.running.push(entry);
    return entry;
  }

  /** The worker is idle again. */
  private settle(entry: Running): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.job = undefined;
    entry.worker.unref();
  }

  /** Refuses the worker's job, drops the worker, and lets the waiting jobs start on a new one. */
  private fail(entry: Running, error: Error): void {
    const index = this.running.indexOf(entry);
    if (index < 0) return;
    this.running.splice(index, 1);
    const job = entry.job;
    this.settle(entry);
    job?.reject(error);
    void entry.worker.terminate();
    if (!this.closed) this.dispatch();
  }
}
