import { parentPort } from 'node:worker_threads';
import type { WorkerAnswer } from '../../../common/workers/worker-pool';
import { ExtractedPage, extractPage, PageTooDeepError } from '../import/html-extract';
import { htmlToMarkdown } from '../import/html-to-markdown';
import { ImportScope, inScope, normalizePageUrl, spacePathOf } from '../import/site-scope';
import { markdownToDocument } from '../document';
import { DocumentInputError, writtenDocumentMarkdown } from '../document/document-input';
import { fileRef, MarkdownLink, markdownLinks, pageRef, Section, splitSections } from '../markdown/markdown';

/** What a write derives from a page body: its links, its search sections and its public document (as JSON text, cheap to pass back). */
export interface DerivedMarkdown {
  links: MarkdownLink[];
  sections: Section[];
  document: string;
}

/** How an imported page's links and images are rewritten (the data behind `WebsiteImportService.convert`'s callbacks). */
export interface ImportLinkMap {
  /** Crawl key → page id of every imported page. */
  pages: [string, string][];
  /** Absolute image URL → file id. */
  files: [string, string][];
  scope: ImportScope;
}

/** A job for the text worker (see TextWorkers). */
export type TextJob =
  | { kind: 'markdown'; markdown: string }
  | { kind: 'document'; markdown: string }
  | { kind: 'document-json'; markdown: string }
  | { kind: 'written-document'; document: unknown }
  | { kind: 'extract'; html: string; url: string }
  | { kind: 'convert'; html: string; map: ImportLinkMap };

export interface TextJobAnswer extends WorkerAnswer {
  derived?: DerivedMarkdown;
  extracted?: ExtractedPage;
  markdown?: string;
  document?: Record<string, unknown>;
  /** `document-json`: the document as JSON text. */
  json?: string;
  /** `written-document`: why the document was refused (`DocumentInputError`), instead of `markdown` and `derived`. */
  problem?: { path: string; message: string };
}

/** The markdown of an imported page's main content, its links pointing at the imported pages and files. */
export function convertImportedPage(html: string, map: ImportLinkMap): string {
  const pageIds = new Map(map.pages);
  const fileIds = new Map(map.files);
  const rewriteLink = (href: string): string => {
    const key = normalizePageUrl(href);
    if (!key) return href;
    const hash = new URL(href).hash;
    const pageId = pageIds.get(key);
    if (pageId) return pageRef(pageId, hash.slice(1) || undefined);
    // A page of the site that was not imported (missing, blocked, over a bound): a space path that stays broken.
    if (inScope(key, map.scope)) return spacePathOf(key, map.scope);
    return href;
  };
  const rewriteImage = (src: string): string => {
    const fileId = fileIds.get(src);
    return fileId ? fileRef(fileId) : src;
  };
  return htmlToMarkdown(html, rewriteLink, rewriteImage);
}

/** Everything a write stores beside a body (`RevisionWriter.insertDocuments`), on whichever thread runs it. */
export function deriveMarkdown(markdown: string): DerivedMarkdown {
  return { links: markdownLinks(markdown), sections: splitSections(markdown), document: JSON.stringify(markdownToDocument(markdown)) };
}

function perform(job: TextJob): TextJobAnswer {
  if (job.kind === 'markdown') return { ok: true, derived: deriveMarkdown(job.markdown) };
  if (job.kind === 'document') return { ok: true, document: markdownToDocument(job.markdown) as unknown as Record<string, unknown> };
  if (job.kind === 'document-json') return { ok: true, json: JSON.stringify(markdownToDocument(job.markdown)) };
  if (job.kind === 'written-document') {
    try {
      const markdown = writtenDocumentMarkdown(job.document);
      return { ok: true, markdown, derived: deriveMarkdown(markdown) };
    } catch (error) {
      if (error instanceof DocumentInputError) return { ok: true, problem: { path: error.path, message: error.problem } };
      throw error;
    }
  }
  if (job.kind === 'extract') return { ok: true, extracted: extractPage(job.html, job.url) };
  return { ok: true, markdown: convertImportedPage(job.html, job.map) };
}

/** The text worker: markdown-it, cheerio and turndown over request data, off the server's event loop. One job at a time. */
const port = parentPort;
if (port) {
  port.on('message', (job: TextJob) => {
    try {
      port.postMessage(perform(job));
    } catch (error) {
      port.postMessage({ ok: false, invalid: error instanceof PageTooDeepError, message: (error as Error).message } satisfies TextJobAnswer);
    }
  });
}
