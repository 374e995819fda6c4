import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SourceFile, SpecDocumentError } from './spec-documents';

/** A validation running longer than this is stopped (its worker restarted) and refused. */
export const VALIDATION_TIMEOUT_MS = 60_000;
/** Heap of the worker: a 5 MB document dereferenced takes a few hundred MB. */
const WORKER_HEAP_MB = 2048;

interface Pending {
  worker: Worker;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Validates specifications in a worker thread: parsing and validating a 5 MB document takes
 * seconds of CPU, which on the server's own thread would stall every other request of the replica.
 * One worker per process, started on first use, jobs one after another; a job that runs too long
 * or a worker that dies is refused and the worker is started afresh for the next one.
 */
@Injectable()
export class SpecValidator implements OnApplicationShutdown {
  private readonly logger = new Logger(SpecValidator.name);
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  /** Resolves when the files form a valid specification; rejects with a SpecDocumentError naming the problem. */
  validate(files: SourceFile[]): Promise<void> {
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.logger.warn(`OpenAPI validation stopped after ${VALIDATION_TIMEOUT_MS} ms; restarting its worker`);
        this.stop(worker, new SpecDocumentError(`The specification took longer than ${VALIDATION_TIMEOUT_MS / 1000} s to validate`));
      }, VALIDATION_TIMEOUT_MS);
      this.pending.set(id, { worker, resolve, reject, timer });
      worker.postMessage({ id, files });
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    // Built: the compiled .js beside this file. From the sources (tests, `npm run cli`): the .ts, compiled on load.
    const file = join(__dirname, `spec-validation.worker${extname(__filename)}`);
    const worker = new Worker(file, {
      execArgv: file.endsWith('.ts') ? ['--require', '@swc-node/register'] : [],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.on('message', (message: { id: number; ok: boolean; invalid?: boolean; message?: string }) => {
      const job = this.pending.get(message.id);
      if (!job) return;
      this.pending.delete(message.id);
      clearTimeout(job.timer);
      if (message.ok) job.resolve();
      else job.reject(message.invalid ? new SpecDocumentError(message.message ?? 'invalid') : new Error(`OpenAPI validation failed: ${message.message}`));
    });
    worker.on('error', (error) => this.stop(worker, error));
    worker.on('exit', (code) => this.stop(worker, new Error(`the OpenAPI validation worker exited with code ${code}`)));
    // An idle worker does not keep the process alive.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Refuses every job the worker holds and lets the next job start a new one. */
  private stop(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, job] of this.pending) {
      if (job.worker !== worker) continue;
      clearTimeout(job.timer);
      job.reject(error);
      this.pending.delete(id);
    }
    void worker.terminate();
  }
}
