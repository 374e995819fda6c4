import { markdownToDocument } from '../document';
import { derivedOf } from './markdown';

/** Documents parsed off the event loop for the read that asked (`prepareDocuments`), kept briefly for its presenter. */
const PREPARED_MS = 10_000;
const PREPARED_MAX_CHARS = 32 * 1024 * 1024;
const prepared = new Map<string, { document: Record<string, unknown>; at: number }>();
let preparedChars = 0;

/** Keeps a document parsed in the text worker for the synchronous presenter of the same read. */
export function rememberDocument(markdown: string, document: Record<string, unknown>): void {
  const now = Date.now();
  if (prepared.has(markdown)) return;
  prepared.set(markdown, { document, at: now });
  preparedChars += markdown.length;
  // Oldest first: drop the expired ones and, past the bound, the oldest.
  for (const [key, entry] of prepared) {
    if (key === markdown || (now - entry.at < PREPARED_MS && preparedChars <= PREPARED_MAX_CHARS)) break;
    prepared.delete(key);
    preparedChars -= key.length;
  }
}

/**
 * The one place a page body becomes the public `JSONDocument` (`getPageDocumentInRevisionById` and
 * `format=document` on page reads): the document model's dialect parser (`content/document/`). A body
 * the read prepared in the text worker (large ones: `prepareDocuments`) is not parsed again here.
 */
export function pageDocument(markdown: string): Record<string, unknown> {
  const known = prepared.get(markdown);
  if (known && Date.now() - known.at < PREPARED_MS) return known.document;
  return markdownToDocument(markdown) as unknown as Record<string, unknown>;
}

/**
 * The document a write stores beside a new body (`documents.document`), as JSON text: the one the
 * worker pool derived for a large body (`prepareMarkdown`), else parsed here.
 */
export function storedDocumentJson(markdown: string): string {
  return derivedOf(markdown)?.document ?? JSON.stringify(markdownToDocument(markdown));
}
