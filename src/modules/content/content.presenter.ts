import type { Page } from '../../common/pagination/paginate';
import type { PageWithBody, RevisionContent, RevisionContext, RevisionPages } from './content.read-model';
import { evaluateDocument, type EvaluationContext, type JsonDocument } from './document';
import { pageDocument } from './markdown/page-document';
import type { RevisionReusableContent } from './revision-reusable-content.entity';
import { RawJson } from '../../common/http/raw-json';
import { withRelativeRefs } from './markdown/markdown-refs';
import { RevisionFile } from './revision-file.entity';
import { PageCover, PageLayout } from './revision-page.entity';
import { RevisionGit, RevisionType } from './revision.entity';

/** `RevisionFile` of the public description. */
export interface RevisionFileJson {
  id: string;
  name: string;
  contentType: string;
  downloadURL: string;
  size: number;
  dimensions?: { width: number; height: number };
}

/** What every `RevisionPage` variant shows. */
interface RevisionPageCommonJson {
  id: string;
  title: string;
  emoji?: string;
  icon?: string;
  createdAt: string;
  updatedAt: string;
}

/** `RevisionPageLink`. */
export interface RevisionPageLinkJson extends RevisionPageCommonJson {
  kind: 'link';
  type: 'link';
  target: Record<string, string>;
  hidden: boolean;
  href?: string;
}

interface RevisionPageFlagsJson {
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
}

/** `RevisionPageGroup`. */
export interface RevisionPageGroupJson extends RevisionPageCommonJson, RevisionPageFlagsJson {
  kind: 'group';
  type: 'group';
  slug: string | null;
  path: string | null;
  pages: RevisionPageJson[];
}

/** `RevisionPageDocument`, with its body as markdown or as the document tree. */
export interface RevisionPageDocumentJson extends RevisionPageCommonJson, RevisionPageFlagsJson {
  kind: 'sheet';
  type: 'document';
  urls: { app: string };
  slug: string | null;
  path: string | null;
  pages: RevisionPageJson[];
  layout: Record<string, unknown>;
  tags: string[];
  description?: string;
  cover?: PageCover;
  variables?: Record<string, string | number | boolean>;
  documentId?: string;
  document?: Record<string, unknown>;
  markdown?: string;
}

/** `RevisionPage` of the public description: one of its variants. */
export type RevisionPageJson = RevisionPageLinkJson | RevisionPageGroupJson | RevisionPageDocumentJson;

/** `Revision` of the public description. */
export interface RevisionJson {
  object: 'revision';
  id: string;
  type: RevisionType;
  parents: string[];
  pages: RevisionPageJson[];
  files: RevisionFileJson[];
  reusableContents: RevisionReusableContentJson[];
  tags: string[];
  variables: Record<string, string | number | boolean>;
  createdAt: string;
  urls: { app: string };
  git?: RevisionGit;
}

/** The page tree of a revision (`listPages`). */
export interface RevisionPagesJson {
  pages: RevisionPageJson[];
}

/** A page of a revision's files (`listFiles`). */
export interface RevisionFilesJson {
  items: RevisionFileJson[];
  count: number;
  next?: { page: string };
}

export interface BodyOptions {
  /** `markdown` (default) or the `document` JSON tree. */
  format: 'markdown' | 'document';
  /** Page refs as paths relative to the page (default) or as stable `/pages/ID` refs. */
  refs: 'relative' | 'stable';
  /** How a `document` body is evaluated (`evaluated`, `dereferenced`); undefined: as stored. */
  evaluation?: EvaluationContext;
}

const DEFAULT_BODY: BodyOptions = { format: 'markdown', refs: 'relative' };

/** Every layout flag the public schema requires, shown when a page has not set it. */
export const DEFAULT_LAYOUT = {
  width: 'default',
  cover: true,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
};

/** App URLs of content sit under the space's own (`/o/{org}/s/{space}`); an older revision's under `~/revisions/{id}`. */
function revisionBase(context: RevisionContext): string {
  const space = `/o/${context.organizationId}/s/${context.spaceId}`;
  return context.active ? space : `${space}/~/revisions/${context.revisionId}`;
}

/** Its API twin: the page by path in the active revision, or in the revision it was read from. */
function revisionApiBase(context: RevisionContext): string {
  const space = `/v1/spaces/${context.spaceId}`;
  return context.active ? `${space}/content` : `${space}/revisions/${context.revisionId}`;
}

export function pageAppUrl(context: RevisionContext, path: string | null): string {
  const encoded = path ? path.split('/').map(encodeURIComponent).join('/') : '';
  return context.config.appLink(`${revisionBase(context)}${encoded ? `/${encoded}` : ''}`, `${revisionApiBase(context)}${encoded ? `/path/${encoded}` : ''}`);
}

export function presentFile(context: RevisionContext, file: RevisionFile): RevisionFileJson {
  const json: RevisionFileJson = {
    id: file.fileId,
    name: file.name,
    contentType: file.contentType,
    // Always the revision's own route: revisions are immutable, so the URL names fixed bytes.
    downloadURL:
      context.fileUrl?.(file.fileId) ?? context.config.apiUrl(`/v1/spaces/${context.spaceId}/revisions/${context.revisionId}/files/${file.fileId}/download`),
    size: file.size,
  };
  if (file.width !== null && file.height !== null) json.dimensions = { width: file.width, height: file.height };
  return json;
}

/** A page of a revision's files. */
export function presentFiles(context: RevisionContext, page: Page<RevisionFile>): RevisionFilesJson {
  return { ...page, items: page.items.map((file) => presentFile(context, file)) };
}

/**
 * Pages as the public `RevisionPage` variants. Document pages carry their body: the public schema
 * makes a document page's body part of the page (markdown, document, or neither, with nothing else).
 */
export class PagePresenter {
  private readonly children = new Map<string | null, PageWithBody[]>();
  private readonly paths = new Map<string, string | null>();

  constructor(
    private readonly context: RevisionContext,
    pages: PageWithBody[],
    /** Paths of other pages the bodies may link to (looked up, not copied: a streamed tree passes one map for many pages). */
    private readonly allPaths?: Map<string, string | null>,
  ) {
    for (const page of pages) {
      const siblings = this.children.get(page.parentId) ?? [];
      siblings.push(page);
      this.children.set(page.parentId, siblings);
      this.paths.set(page.pageId, page.path);
    }
    for (const siblings of this.children.values()) siblings.sort((a, b) => a.position - b.position);
  }

  private pathOf(pageId: string): string | null | undefined {
    return this.allPaths?.has(pageId) ? this.allPaths.get(pageId) : this.paths.get(pageId);
  }

  /** The top of the tree (pages without a parent), nested. */
  roots(): RevisionPageJson[] {
    return (this.children.get(null) ?? []).map((page) => this.present(page, DEFAULT_BODY));
  }

  /** One page with its descendants; `body` applies to that page, its children show markdown. */
  page(page: PageWithBody, body: BodyOptions = DEFAULT_BODY): RevisionPageJson {
    return this.present(page, body);
  }

  private present(page: PageWithBody, body: BodyOptions): RevisionPageJson {
    const common: RevisionPageCommonJson = {
      id: page.pageId,
      title: page.title,
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      createdAt: page.createdAt.toISOString(),
      updatedAt: page.updatedAt.toISOString(),
    };
    const nested = () => (this.children.get(page.pageId) ?? []).filter((child) => child.kind !== 'group').map((child) => this.present(child, DEFAULT_BODY));

    if (page.kind === 'link') {
      const target = page.linkTarget ?? { kind: 'url', url: '' };
      const json: RevisionPageLinkJson = { ...common, kind: 'link', type: 'link', target, hidden: page.hidden };
      if (target.kind === 'url') json.href = target.url;
      return json;
    }
    const flags = { hidden: page.hidden, noIndex: page.noIndex, noRobotsIndex: page.noRobotsIndex };
    if (page.kind === 'group') return { ...common, kind: 'group', type: 'group', slug: page.slug, path: page.path, ...flags, pages: nested() };

    const json: RevisionPageDocumentJson = {
      ...common,
      kind: 'sheet',
      type: 'document',
      urls: { app: pageAppUrl(this.context, page.path) },
      slug: page.slug,
      path: page.path,
      pages: nested(),
      layout: { ...DEFAULT_LAYOUT, ...(page.layout as PageLayout | null) },
      tags: [],
      ...flags,
    };
    if (page.description) json.description = page.description;
    if (page.cover) json.cover = page.cover;
    if (Object.keys(page.variables ?? {}).length > 0) json.variables = page.variables;
    if (page.documentId) json.documentId = page.documentId;
    const markdown = page.markdown ?? '';
    const readable = body.refs === 'relative' ? withRelativeRefs(markdown, page.path ?? '', (id) => this.pathOf(id)) : markdown;
    // Unevaluated, a stored document is written into the answer as text by `presentPage`.
    if (body.format === 'document') json.document = body.evaluation || !page.documentJson ? evaluatedPageDocument(page, body.evaluation) : {};
    else json.markdown = readable;
    return json;
  }
}

export function presentRevision({ context, revision, pages, files, reusableContents }: RevisionContent, options: { metadata: boolean }): RevisionJson {
  const json: RevisionJson = {
    object: 'revision',
    id: revision.id,
    type: revision.type,
    parents: revision.parents,
    pages: new PagePresenter(context, pages).roots(),
    files: files.map((file) => presentFile(context, file)),
    reusableContents: reusableContents.map(presentReusableContent),
    tags: [],
    variables: revision.variables ?? {},
    createdAt: revision.createdAt.toISOString(),
    urls: {
      app: context.config.appLink(
        `/o/${context.organizationId}/s/${context.spaceId}/~/revisions/${revision.id}`,
        `/v1/spaces/${context.spaceId}/revisions/${revision.id}`,
      ),
    },
  };
  if (options.metadata && revision.git) json.git = revision.git;
  return json;
}

/** The page tree of a revision. */
export function presentPages({ context, pages }: RevisionPages): RevisionPagesJson {
  return { pages: new PagePresenter(context, pages).roots() };
}

/**
 * One page (the first of `pages`) with its descendants, its body as `body` asks. A stored document
 * (`documentJson`) that the read does not ask evaluated goes into the answer as PostgreSQL wrote it,
 * last, never parsed and serialized again.
 */
export function presentPage({ context, pages, paths, evaluation }: RevisionPages, body: BodyOptions): RevisionPageJson | RawJson {
  const json = new PagePresenter(context, pages, paths).page(pages[0], { ...body, evaluation });
  const stored = body.format === 'document' && !evaluation ? pages[0].documentJson : undefined;
  if (!stored || !('document' in json)) return json;
  const { document: _stored, ...rest } = json;
  const head = JSON.stringify(rest);
  return new RawJson(`${head.slice(0, -1)},"document":${stored}}`);
}

/** A page's body as the public `JSONDocument`: the stored one (or, for rows not filled yet and computed pages, a parse). */
function documentOf(page: PageWithBody): Record<string, unknown> {
  return page.documentJson ? (JSON.parse(page.documentJson) as Record<string, unknown>) : pageDocument(page.markdown ?? '');
}

/** A page's body as the public `JSONDocument`, evaluated as the read asks with the page's own variables over the revision's. */
function evaluatedPageDocument(page: PageWithBody, evaluation: EvaluationContext | undefined): Record<string, unknown> {
  const document = documentOf(page);
  if (!evaluation) return document;
  return evaluateDocument(document as unknown as JsonDocument, { ...evaluation, pageVariables: page.variables ?? {} }) as unknown as Record<string, unknown>;
}

/** A page's body as the public `JSONDocument` (`getPageDocumentInRevisionById`): unevaluated, the stored one as stored. */
export function presentPageDocument({ page, evaluation }: { page: PageWithBody; evaluation?: EvaluationContext }): Record<string, unknown> | RawJson {
  if (!evaluation && page.documentJson) return new RawJson(page.documentJson);
  return evaluatedPageDocument(page, evaluation);
}
/** `RevisionReusableContent` of the public description. */
export interface RevisionReusableContentJson {
  id: string;
  title: string;
  document?: string;
}

export function presentReusableContent(reusable: RevisionReusableContent): RevisionReusableContentJson {
  return { id: reusable.reusableContentId, title: reusable.title, ...(reusable.documentId ? { document: reusable.documentId } : {}) };
}

/** A computed source's document (`getComputedDocument`). */
export function presentComputedDocument(document: JsonDocument): Record<string, unknown> {
  return document as unknown as Record<string, unknown>;
}

/** A reusable content's body as the public `JSONDocument` (`getReusableContentDocumentInRevisionById`), evaluated as the read asks. */
export function presentReusableContentDocument({ document, evaluation }: { document: JsonDocument; evaluation?: EvaluationContext }): Record<string, unknown> {
  return (evaluation ? evaluateDocument(document, evaluation) : document) as unknown as Record<string, unknown>;
}

/**
 * The public `RevisionPageMetaLinks` of a page: Quire stores no canonical URL or language
 * alternates per page, so a page that exists answers no canonical and no alternates (the renderer
 * then uses the page's own URL).
 */
export interface RevisionPageMetaLinksJson {
  alternates: never[];
}

export function presentPageMetaLinks(): RevisionPageMetaLinksJson {
  return { alternates: [] };
}
