import { toJsonDocument } from './json-document';

/**
 * The one place a page body becomes the public `JSONDocument` (`getPageDocumentInRevisionById` and
 * `format=document` on page reads). The builder behind it is swapped here, and only here, when the
 * GitBook document-model parser replaces the markdown one.
 */
export function pageDocument(markdown: string): Record<string, unknown> {
  return toJsonDocument(markdown);
}
