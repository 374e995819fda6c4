import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

/** What a pool's worker answers: `ok`, or the refusal (`invalid`: the input's fault, a 4xx). */
export interface WorkerAnswer {
  ok: boolean;
  invalid?: boolean;
  message?: string;
}

export interface WorkerPoolOptions<Job> {
  /** For log lines (`OpenAPI`, `text`). */
  name: string;
  /** The worker's file: the compiled `.js`, or a `.ts` compiled on load (tests, `npm run cli`). */
  file: string;
  /** Workers at most, started on demand. */
  size: number;
  /** A job running longer is stopped (its worker replaced) and refused with `timeoutError(job)`. */
  timeoutMs: number;
  heapMb: number;
  /** What a job past the time limit is refused with (a 4xx naming the limit). */
  timeoutError: (job: Job) => Error;
  /** What an `invalid` answer is refused with (a 4xx naming the problem). */
  invalidError: (message: string, job: Job) => Error;
  /** A short name of a job, for log lines. */
  describe: (job: Job) => string;
}

interface Queued<Job, Answer> {
  body: Job;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

interface Running<Job, Answer> {
  worker: Worker;
  job: Queued<Job, Answer> | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * CPU work off the server's event loop: a small bounded pool of worker threads, started on demand,
 * one job per worker at a time, the rest waiting in order. A job that runs longer than its time
 * limit, or a worker that dies, is refused and its worker replaced. An idle worker does not keep the
 * process alive.
 */
export class WorkerPool<Job, Answer extends WorkerAnswer> {
  private readonly logger: Logger;
  private readonly running: Running<Job, Answer>[] = [];
  private readonly queue: Queued<Job, Answer>[] = [];
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions<Job>) {
    this.logger = new Logger(`WorkerPool(${options.name})`);
  }

  run(body: Job): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error('the server is shutting down'));
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      this.dispatch();
    });
  }

  /** Workers started and jobs waiting (for tests and the bench). */
  stats(): { workers: number; busy: number; waiting: number } {
    return { workers: this.running.length, busy: this.running.filter((entry) => entry.job).length, waiting: this.queue.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.running.splice(0);
    for (const job of this.queue.splice(0)) job.reject(new Error('the server is shutting down'));
    for (const entry of running) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.job?.reject(new Error('the server is shutting down'));
    }
    await Promise.all(running.map((entry) => entry.worker.terminate()));
  }

  /** Gives waiting jobs to idle workers, starting workers up to the bound. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.running.find((entry) => !entry.job) ?? (this.running.length < this.options.size ? this.start() : undefined);
      if (!idle) return;
      this.assign(idle, this.queue.shift() as Queued<Job, Answer>);
    }
  }

  private assign(entry: Running<Job, Answer>, job: Queued<Job, Answer>): void {
    entry.job = job;
    entry.worker.ref();
    entry.timer = setTimeout(() => {
      this.logger.warn(`${this.options.name} ${this.options.describe(job.body)} stopped after ${this.options.timeoutMs} ms; restarting its worker`);
      this.fail(entry, this.options.timeoutError(job.body));
    }, this.options.timeoutMs);
    entry.worker.postMessage(job.body);
  }

  private start(): Running<Job, Answer> {
    const file = this.options.file;
    const worker = new Worker(file, {
      execArgv: file.endsWith('.ts') ? ['--require', '@swc-node/register'] : [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    const entry: Running<Job, Answer> = { worker, job: undefined, timer: undefined };
    worker.on('message', (answer: Answer) => {
      const job = entry.job;
      if (!job) return;
      this.settle(entry);
      if (answer.ok) job.resolve(answer);
      else
        job.reject(
          answer.invalid
            ? this.options.invalidError(answer.message ?? 'invalid', job.body)
            : new Error(`${this.options.name} ${this.options.describe(job.body)} failed: ${answer.message}`),
        );
      this.dispatch();
    });
    worker.on('error', (error) => this.fail(entry, error));
    worker.on('exit', (code) => this.fail(entry, new Error(`a ${this.options.name} worker exited with code ${code}`)));
    worker.unref();
    this.running.push(entry);
    return entry;
  }

  /** The worker is idle again. */
  private settle(entry: Running<Job, Answer>): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.job = undefined;
    entry.worker.unref();
  }

  /** Refuses the worker's job, drops the worker, and lets the waiting jobs start on a new one. */
  private fail(entry: Running<Job, Answer>, error: Error): void {
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
