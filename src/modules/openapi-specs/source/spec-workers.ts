import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { WorkerPool } from '../../../common/workers/worker-pool';
import type { OpenApiRenderProps } from '../render/openapi-markdown';
import { SourceFile, SpecDocumentError } from './spec-documents';
import type { SpecProblems } from './spec-validation';
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

/**
 * The OpenAPI module's CPU work, off the server's event loop: parsing a source's files (a 5 MB
 * YAML takes seconds), validating a source (parse, `$ref`
 * checks, the parser's validation: seconds for a 5 MB document) and rendering a computed page
 * (parsing the stored filesystem and generating its markdown: 1.5–3 s for a 5 MB spec). On the
 * main thread either would stall every other request of the replica.
 *
 * A `WorkerPool` (`common/workers/`) of SPEC_WORKERS workers; a job that runs longer than
 * SPEC_JOB_TIMEOUT_MS, or a worker that dies, is refused and its worker replaced.
 */
@Injectable()
export class SpecWorkers implements OnApplicationShutdown {
  private readonly pool = new WorkerPool<SpecJob, SpecJobAnswer>({
    name: 'OpenAPI',
    // Built: the compiled .js beside this file. From the sources (tests, `npm run cli`): the .ts, compiled on load.
    file: join(__dirname, `spec.worker${extname(__filename)}`),
    size: SPEC_WORKERS,
    timeoutMs: SPEC_JOB_TIMEOUT_MS,
    heapMb: WORKER_HEAP_MB,
    timeoutError: (job) => new SpecDocumentError(`The specification took longer than ${SPEC_JOB_TIMEOUT_MS / 1000} s to ${job.kind}`),
    invalidError: (message) => new SpecDocumentError(message),
    describe: (job) => job.kind,
  });

  /** Parses one file (JSON or YAML) and finds its `$ref`s; rejects with a SpecDocumentError when it does not parse. */
  async parse(text: string, name: string): Promise<ParsedSpecFile> {
    const answer = await this.pool.run({ kind: 'parse', text, name });
    return answer.parsed as ParsedSpecFile;
  }

  /**
   * The problems of a specification's files (none when it is valid): broken `$ref`s and validator
   * errors. Rejects with a SpecDocumentError only when a file does not parse, or the job times out.
   */
  async validate(files: SourceFile[]): Promise<SpecProblems> {
    const answer = await this.pool.run({ kind: 'validate', files });
    return answer.problems ?? { problems: [], total: 0 };
  }

  /** The markdown of a computed page: `filesystem` is the stored filesystem as JSON text (parsed in the worker). */
  async render(filesystem: string, props: OpenApiRenderProps): Promise<string> {
    const answer = await this.pool.run({ kind: 'render', filesystem, props });
    return answer.markdown ?? '';
  }

  /** Workers started and jobs waiting (for tests and the bench). */
  stats(): { workers: number; busy: number; waiting: number } {
    return this.pool.stats();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}
