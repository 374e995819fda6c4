import { markdownToDocument } from '../document';

/**
 * The one place a page body becomes the public `JSONDocument` (`getPageDocumentInRevisionById` and
 * `format=document` on page reads): the document model's dialect parser (`content/document/`).
 */
export function pageDocument(markdown: string): Record<string, unknown> {
  return markdownToDocument(markdown) as unknown as Record<string, unknown>;
}
