import type { ComputedSource, PageCover, PageKind, PageLayout } from '../revision-page.entity';

/** What semantic changes compare of a page (a row of `revision_pages`, without position or body text). */
export interface SemanticPage {
  pageId: string;
  parentId: string | null;
  kind: PageKind;
  title: string;
  emoji: string | null;
  slug: string | null;
  path: string | null;
  description: string | null;
  layout: Partial<PageLayout> | null;
  cover: PageCover | null;
  variables: Record<string, unknown> | null;
  documentId: string | null;
  linkTarget: object | null;
  computed: ComputedSource | null;
}

export interface SemanticFile {
  fileId: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  blobId: string;
}

export interface Versions<T> {
  before?: T;
  after?: T;
}

export type AttributeChange = { before: unknown; after: unknown };

export type SemanticChange =
  | { type: 'page_created'; page: SemanticPage }
  | { type: 'page_deleted'; page: SemanticPage }
  | { type: 'page_moved'; page: SemanticPage; parentBefore: string | null; parentAfter: string | null }
  | { type: 'page_edited'; page: SemanticPage; attributes: Record<string, AttributeChange> }
  | { type: 'file_created'; file: SemanticFile }
  | { type: 'file_deleted'; file: SemanticFile }
  | { type: 'file_edited'; file: SemanticFile; attributes: Record<string, AttributeChange> };

/** The public attribute names each kind of page reports (`RevisionPage{Document,Group,Link}ChangeAttributes`), and the field each reads. */
const PAGE_ATTRIBUTES: Record<PageKind, [string, (page: SemanticPage) => unknown][]> = {
  document: [
    ['title', (p) => p.title],
    ['description', (p) => p.description],
    ['slug', (p) => p.slug],
    ['document', (p) => p.documentId],
    ['cover', (p) => p.cover],
    ['emoji', (p) => p.emoji],
    ['layout', (p) => p.layout],
    ['variables', (p) => p.variables],
  ],
  group: [
    ['title', (p) => p.title],
    ['emoji', (p) => p.emoji],
    ['slug', (p) => p.slug],
  ],
  link: [
    ['title', (p) => p.title],
    ['emoji', (p) => p.emoji],
    ['target', (p) => p.linkTarget],
  ],
};

const FILE_ATTRIBUTES: [string, (file: SemanticFile) => unknown][] = [
  ['name', (f) => f.name],
  ['contentType', (f) => f.contentType],
  ['size', (f) => f.size],
  ['dimensions', (f) => (f.width !== null && f.height !== null ? { width: f.width, height: f.height } : null)],
  // New bytes under the same file id: the download URL names other bytes.
  ['downloadURL', (f) => f.blobId],
];

/** Empty objects and absent values are one thing to a reader: `{}` variables are no variables. */
function canonical(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object' && Object.keys(value).length === 0) return 'null';
  return JSON.stringify(value);
}

function differing<T>(before: T, after: T, attributes: [string, (item: T) => unknown][]): Record<string, AttributeChange> {
  const changed: Record<string, AttributeChange> = {};
  for (const [name, read] of attributes) {
    const [b, a] = [read(before), read(after)];
    if (canonical(b) !== canonical(a)) changed[name] = { before: b, after: a };
  }
  return changed;
}

/**
 * The semantic changes between two versions of the pages and files that may differ (rows equal in
 * both give nothing, so a caller may pass more than differs): a page in one version only is created
 * or deleted; one in both is moved when its parent changed (its sub-pages, whose parent did not,
 * are not) and edited when an attribute the public description names for its kind changed. A change
 * of position among the same siblings alone is not reported (an insertion renumbers its siblings).
 * Ordered by path (pages), then by name (files).
 */
export function semanticChanges(pages: Versions<SemanticPage>[], files: Versions<SemanticFile>[]): SemanticChange[] {
  const pageChanges: { key: string; change: SemanticChange }[] = [];
  for (const { before, after } of pages) {
    if (after && !before) pageChanges.push({ key: after.path ?? after.title, change: { type: 'page_created', page: after } });
    else if (before && !after) pageChanges.push({ key: before.path ?? before.title, change: { type: 'page_deleted', page: before } });
    else if (before && after) {
      const key = after.path ?? after.title;
      if (before.parentId !== after.parentId) {
        pageChanges.push({ key, change: { type: 'page_moved', page: after, parentBefore: before.parentId, parentAfter: after.parentId } });
      }
      const attributes = differing(before, after, PAGE_ATTRIBUTES[after.kind]);
      if (Object.keys(attributes).length > 0) pageChanges.push({ key, change: { type: 'page_edited', page: after, attributes } });
    }
  }
  const fileChanges: { key: string; change: SemanticChange }[] = [];
  for (const { before, after } of files) {
    if (after && !before) fileChanges.push({ key: after.name, change: { type: 'file_created', file: after } });
    else if (before && !after) fileChanges.push({ key: before.name, change: { type: 'file_deleted', file: before } });
    else if (before && after) {
      const attributes = differing(before, after, FILE_ATTRIBUTES);
      if (Object.keys(attributes).length > 0) fileChanges.push({ key: after.name, change: { type: 'file_edited', file: after, attributes } });
    }
  }
  const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  return [...pageChanges.sort(byKey), ...fileChanges.sort(byKey)].map((entry) => entry.change);
}
