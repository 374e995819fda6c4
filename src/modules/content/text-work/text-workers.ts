import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { WorkerPool } from '../../../common/workers/worker-pool';
import { contentError } from '../content.errors';
import type { ExtractedPage } from '../import/html-extract';
import { PageTooDeepError } from '../import/html-extract';
import { rememberDerived, derivedOf } from '../markdown/markdown';
import { rememberDocument } from '../markdown/page-document';
import { DocumentInputError, measureDocument, writtenDocumentMarkdown } from '../document/document-input';
import type { ImportLinkMap, TextJob, TextJobAnswer } from './text.worker';

/** A text job running longer than this is stopped (its worker replaced) and its request refused (422 `content.text_time_limit`). */
export const TEXT_JOB_TIMEOUT_MS = 15_000;
/**
 * Bodies shorter than this are parsed on the event loop. Measured here (markdown-it, warmed): at 16 KB
 * an ordinary body parses in ~1.5 ms and the worst runs (`![`, `[`, `*a`) in ~11–13 ms on the loop,
 * while the worker's round trip costs ~5 ms more than the parse itself (6.3 ms for the ordinary 16 KB
 * body); at 64 KB the worst runs take 43–64 ms on the loop. Below 16 KB the loop's cost stays under
 * ~15 ms and a worker would cost more than it saves.
 */
export const TEXT_WORKER_MIN_LENGTH = 16 * 1024;
/** Two workers, never more than the cores. */
export const TEXT_WORKERS = Math.max(1, Math.min(2, availableParallelism()));

const describe = (job: TextJob): string =>
  'markdown' in job ? `${job.kind} (${job.markdown.length} chars)` : 'html' in job ? `HTML ${job.kind} (${job.html.length} chars)` : job.kind;

/**
 * The process's one pool for markdown derived at write time and for HTML import (`common/workers/`),
 * started on first use; its idle workers do not keep the process alive.
 */
let pool: WorkerPool<TextJob, TextJobAnswer> | undefined;
function textPool(): WorkerPool<TextJob, TextJobAnswer> {
  pool ??= new WorkerPool<TextJob, TextJobAnswer>({
    name: 'text',
    // Built: the compiled .js beside this file. From the sources (tests, `npm run cli`): the .ts, compiled on load.
    file: join(__dirname, `text.worker${extname(__filename)}`),
    size: TEXT_WORKERS,
    timeoutMs: TEXT_JOB_TIMEOUT_MS,
    heapMb: 1024,
    timeoutError: (job) => textTimeLimitError('html' in job ? 'html' : 'markdown'),
    invalidError: (message) => new PageTooDeepError(message),
    describe,
  });
  return pool;
}

/** The refusal of a text job past TEXT_JOB_TIMEOUT_MS: 422 `content.text_time_limit`, naming the limit. */
export function textTimeLimitError(what: 'markdown' | 'html'): Error {
  return contentError('content.text_time_limit', `${what}: reading the text took longer than the ${TEXT_JOB_TIMEOUT_MS / 1000} s limit`);
}

/** Workers started and jobs waiting (for tests and the bench). */
export const textWorkerStats = () => textPool().stats();

/**
 * Derives the links, search sections and public document of every body of at least TEXT_WORKER_MIN_LENGTH in the
 * worker pool, and keeps them for the write's synchronous readers (`markdownLinks`, `splitSections`,
 * `storedDocumentJson`).
 * Rejects with 422 `content.text_time_limit` when a body takes longer than TEXT_JOB_TIMEOUT_MS.
 */
export async function prepareMarkdown(bodies: Iterable<string>): Promise<void> {
  const large = [...new Set(bodies)].filter((markdown) => markdown.length >= TEXT_WORKER_MIN_LENGTH && !derivedOf(markdown));
  await Promise.all(
    large.map(async (markdown) => {
      const answer = await textPool().run({ kind: 'markdown', markdown });
      if (answer.derived) rememberDerived(markdown, answer.derived);
    }),
  );
}

/**
 * Written documents with at least this many nodes are checked and written as Markdown in the worker
 * pool (a body of 1 MB, the request bound, holds ~20,000; checking and writing cost ~10 µs a node).
 */
export const DOCUMENT_WORKER_MIN_NODES = 2000;

/**
 * The Markdown a written `JSONDocument` is stored as (`writtenDocumentMarkdown`): measured on the
 * loop, then checked and written there when small, in the worker pool when large (its links,
 * sections and document then derived there too, for the write: `prepareMarkdown` finds them).
 * Throws DocumentInputError for an invalid document.
 */
export async function writtenDocumentMarkdownOffLoop(document: unknown): Promise<string> {
  if (measureDocument(document) < DOCUMENT_WORKER_MIN_NODES) return writtenDocumentMarkdown(document);
  const answer = await textPool().run({ kind: 'written-document', document });
  if (answer.problem) throw new DocumentInputError(answer.problem.path, answer.problem.message);
  const markdown = answer.markdown ?? '';
  if (answer.derived) rememberDerived(markdown, answer.derived);
  return markdown;
}

/** `extractPage` in the worker pool: rejects with PageTooDeepError, or 422 `content.text_time_limit`. */
export async function extractPageOffLoop(html: string, url: string): Promise<ExtractedPage> {
  return (await textPool().run({ kind: 'extract', html, url })).extracted as ExtractedPage;
}

/** An imported page's markdown (`convertImportedPage`) in the worker pool. */
export async function convertPageOffLoop(html: string, map: ImportLinkMap): Promise<string> {
  return (await textPool().run({ kind: 'convert', html, map })).markdown ?? '';
}

/**
 * A body's public document as JSON text, parsed in the worker pool whatever its size (bodies stored
 * before documents were: `FillDocumentsJob`). Rejects with 422 `content.text_time_limit` past
 * TEXT_JOB_TIMEOUT_MS.
 */
export async function documentJsonOffLoop(markdown: string): Promise<string> {
  return (await textPool().run({ kind: 'document-json', markdown })).json as string;
}

/**
 * Parses the bodies a read answers as documents (`format=document`, the page-document route) and
 * finds none stored for (a body stored before documents were, until `FillDocumentsJob` fills it; a
 * computed page's generated body; a comment) in the worker pool when they are at least
 * TEXT_WORKER_MIN_LENGTH long, for `pageDocument` to pick up; a
 * 1 MB body costs ~0.5 s of parsing, which would otherwise hold the event loop. Rejects with 422
 * `content.text_time_limit` past TEXT_JOB_TIMEOUT_MS.
 */
export async function prepareDocuments(bodies: Iterable<string | null | undefined>): Promise<void> {
  const large = [...new Set(bodies)].filter((markdown): markdown is string => !!markdown && markdown.length >= TEXT_WORKER_MIN_LENGTH);
  await Promise.all(
    large.map(async (markdown) => {
      const answer = await textPool().run({ kind: 'document', markdown });
      if (answer.document) rememberDocument(markdown, answer.document);
    }),
  );
}
