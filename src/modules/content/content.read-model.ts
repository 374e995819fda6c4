import type { AppConfig } from '../../config/app-config';
import type { EvaluationContext } from './document';
import type { Page } from '../../common/pagination/paginate';
import type { RevisionFile } from './revision-file.entity';
import type { ComputedSource, PageCover, PageKind, PageLayout, RevisionPage } from './revision-page.entity';
import type { RevisionReusableContent } from './revision-reusable-content.entity';
import type { Revision } from './revision.entity';

/**
 * A page of a revision with its markdown body (null for groups and links, which have none) and, on
 * reads that answer it, its stored public document as JSON text (null when the body has none stored yet).
 */
export type PageWithBody = RevisionPage & { markdown: string | null; documentJson?: string | null };

/**
 * A page of a revision's tree as it is streamed (depth first, with its depth, 0 at the top): the
 * parts of its JSON that are the same text for every caller already written by PostgreSQL, and
 * what the presenter still has to shape (URLs, timestamps, JSON columns, bodies).
 */
export interface TreeRow {
  depth: number;
  kind: PageKind;
  pageId: string;
  path: string | null;
  /** `{"id":…,"title":…` and `"emoji"`, `"icon"` when set. */
  head: string;
  createdMs: number;
  updatedMs: number;
  /** `,"slug":…,"path":…` (groups and documents). */
  slugPath: string | null;
  /** `,"hidden":…` (links) or `,"hidden":…,"noIndex":…,"noRobotsIndex":…`, then a document's `"description"` when set. */
  flags: string;
  /** The JSON columns, documents' (`layout`, `cover`, `variables`) or links' (`linkTarget`); null otherwise. */
  layout: PageLayout | null;
  cover: PageCover | null;
  variables: Record<string, string | number | boolean> | null;
  linkTarget: RevisionPage['linkTarget'];
  documentId: string | null;
  computed: ComputedSource | null;
  /** A document's body (null without one, and for groups and links); a computed page's is filled by `ComputedPages.fill`. */
  markdown: string | null;
}

/** A revision's tree read from one connection: the batches, and paths by key from the same snapshot. */
export interface TreeCursor {
  batches: AsyncGenerator<TreeRow[]>;
  pathsOf(pageIds: string[]): Promise<Map<string, string | null>>;
}

/**
 * A whole revision read as a stream: the revision, its files and reusable contents, and its tree
 * in batches (depth first); `pathsOf` gives the paths of pages the bodies link to, by key.
 */
export interface RevisionStream {
  context: RevisionContext;
  revision: Revision;
  files: RevisionFile[];
  reusableContents: RevisionReusableContent[];
  tree: AsyncIterable<TreeRow[]>;
  pathsOf(pageIds: string[]): Promise<Map<string, string | null>>;
}

/** Where a revision is read from: its space, and whether it is the active one (URLs differ). */
export interface RevisionContext {
  config: AppConfig;
  organizationId: string;
  spaceId: string;
  revisionId: string;
  active: boolean;
  /** Set for reads by a site API token: the signed, token-free URL of a file (`reader-files/`), used as its `downloadURL`. */
  fileUrl?: (fileId: string) => string;
}

/** A whole revision as the content service reads it: the revision, its pages (with bodies), files and reusable contents. */
export interface RevisionContent {
  context: RevisionContext;
  revision: Revision;
  pages: PageWithBody[];
  files: RevisionFile[];
  reusableContents: RevisionReusableContent[];
}

/** A page tree read from a revision: the pages to show (a whole tree, or one page's subtree with that page first). */
export interface RevisionPages {
  context: RevisionContext;
  pages: PageWithBody[];
  /** Every page's path in the revision, when page refs are shown relative to the page. */
  paths?: Map<string, string | null>;
  /** How the first page's document is evaluated, when it is read as an evaluated or dereferenced document. */
  evaluation?: EvaluationContext;
}

/** One file of a revision. */
export interface RevisionFileRead {
  context: RevisionContext;
  file: RevisionFile;
}

/** A page of a revision's files. */
export interface RevisionFilesPage {
  context: RevisionContext;
  page: Page<RevisionFile>;
}

/** What one run of content GC removed (`RevisionLifecycleService.collectGarbage`). */
export interface GarbageCollected {
  documents: number;
  blobs: number;
}
