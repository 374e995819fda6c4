import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { SpaceAccess } from '../access/space-access.service';
import type {
  PageWithBody,
  RevisionContent,
  RevisionStream,
  RevisionContext,
  RevisionFileRead,
  RevisionFilesPage,
  RevisionPages,
  TreeRow,
} from './content.read-model';
import { ComputedPages } from './computed/computed-pages';
import { ContentRepository } from './content.repository';
import { contentError } from './content.errors';
import { DocumentEvaluation } from './document-evaluation.service';
import type { EvaluationContext, JsonDocument } from './document';
import { DocumentQueryDto, PageQueryDto, RevisionFilesQueryDto } from './dto/content-query.dto';
import type { RevisionReusableContent } from './revision-reusable-content.entity';
import type { ComputedSource } from './revision-page.entity';
import { RevisionFile } from './revision-file.entity';
import { Revision } from './revision.entity';
import { referencedPageIds } from './markdown/markdown-refs';
import { FileUrlSigner } from './reader-files/file-url-signer';
import { prepareDocuments } from './text-work/text-workers';
import { pageDocument } from './markdown/page-document';
import { RawJson } from '../../common/http/raw-json';

export interface ReadableRevision {
  access: SpaceAccess;
  revision: Revision;
  context: RevisionContext;
}

/** Reads of a space's content, from its active revision or from any revision of the space by id. */
@Injectable()
export class ContentService {
  constructor(
    private readonly content: ContentRepository,
    private readonly config: AppConfig,
    private readonly computedPages: ComputedPages,
    private readonly fileUrls: FileUrlSigner,
    private readonly evaluation: DocumentEvaluation,
  ) {}

  /** `context` for a reader (a site API token): files' `downloadURL`s become signed URLs that need no token. */
  async forReaders(context: RevisionContext): Promise<RevisionContext> {
    return { ...context, fileUrl: await this.fileUrls.signerFor(context.revisionId) };
  }

  /**
   * The revision to read (the active one when `revisionId` is undefined); 404 when it is not the
   * space's. `access` comes from the route's `@SpaceAction(CONTENT_POLICY.read)`.
   */
  async open(access: SpaceAccess, revisionId?: string): Promise<ReadableRevision> {
    const spaceId = access.space.id;
    const id = revisionId ?? access.space.revisionId;
    const revision = await this.content.findRevision(spaceId, id);
    if (!revision) throw contentError('content.revision_not_found', `Revision ${id} not found in space ${spaceId}`);
    return {
      access,
      revision,
      context: {
        config: this.config,
        organizationId: access.space.organizationId,
        spaceId,
        revisionId: revision.id,
        active: revision.id === access.space.revisionId,
      },
    };
  }

  /** `computed`: whether computed pages get their generated body (the `computed` query flag). */
  async revision(access: SpaceAccess, revisionId: string | undefined, computed = true): Promise<RevisionContent> {
    const { revision, context } = await this.open(access, revisionId);
    const [pages, files, reusableContents] = await Promise.all([
      this.content.pages(revision.id),
      this.content.files(revision.id),
      this.content.reusableContents(revision.id),
    ]);
    await this.computedPages.fill(context.organizationId, pages, computed);
    return { context, revision, pages, files, reusableContents };
  }

  /**
   * A whole revision to stream: files and reusable contents read now, the page tree read as it is
   * sent (`tree`, depth first, in batches). `computed` says whether computed pages are to be
   * computed (the page rows carry their `computed` source either way).
   */
  async revisionStream(access: SpaceAccess, revisionId: string | undefined, options: { computed?: boolean } = {}): Promise<RevisionStream> {
    const { revision, context } = await this.open(access, revisionId);
    const [files, reusableContents] = await Promise.all([this.content.files(revision.id), this.content.reusableContents(revision.id)]);
    return { context, revision, files, reusableContents, ...this.treeOf(revision, context.organizationId, options.computed ?? true) };
  }

  /** The page tree of a revision to stream. */
  async pagesStream(
    access: SpaceAccess,
    revisionId: string | undefined,
    options: { computed?: boolean } = {},
  ): Promise<Pick<RevisionStream, 'context' | 'tree' | 'pathsOf'>> {
    const { revision, context } = await this.open(access, revisionId);
    return { context, ...this.treeOf(revision, context.organizationId, options.computed ?? true) };
  }

  private treeOf(revision: Revision, organizationId: string, computed: boolean): Pick<RevisionStream, 'tree' | 'pathsOf'> {
    const cursor = this.content.streamTree(revision);
    return { tree: this.computedBatches(cursor.batches, organizationId, computed), pathsOf: cursor.pathsOf };
  }

  /** Each streamed batch with its computed pages generated (or emptied with `computed=false`). */
  private async *computedBatches(batches: AsyncIterable<TreeRow[]>, organizationId: string, computed: boolean): AsyncGenerator<TreeRow[]> {
    for await (const batch of batches) {
      await this.computedPages.fill(organizationId, batch, computed);
      yield batch;
    }
  }

  async pages(access: SpaceAccess, revisionId: string | undefined, computed = true): Promise<RevisionPages> {
    const { revision, context } = await this.open(access, revisionId);
    const pages = await this.content.pages(revision.id);
    await this.computedPages.fill(context.organizationId, pages, computed);
    return { context, pages };
  }

  /**
   * One page and its descendants (the page first); with every page's path when refs are to be
   * relative, and what evaluating its document needs when it is read as one (`claims`: the visitor's,
   * for a site token's read).
   */
  async page(
    access: SpaceAccess,
    revisionId: string | undefined,
    where: { pageId: string } | { path: string },
    query: PageQueryDto,
    claims?: Record<string, unknown>,
  ): Promise<RevisionPages> {
    const { revision, context } = await this.open(access, revisionId);
    const subtree = await this.content.subtree(revision.id, where);
    if (subtree.length === 0) {
      throw contentError('content.page_not_found', 'pageId' in where ? `Page ${where.pageId} not found` : `No page at path ${where.path}`);
    }
    // Relative refs need the paths of the pages the bodies link to (read by key), not the whole tree's.
    await this.computedPages.fill(context.organizationId, subtree, query.computed);
    const paths = query['format.markdown.refs'] === 'relative' ? await this.linkedPaths(revision.id, subtree) : undefined;
    if (query.format !== 'document') return { context, pages: subtree, paths };
    await this.withDocument(subtree[0]);
    const evaluation = await this.evaluation.contextFor(revision, query, this.includesOf(query, subtree[0]), claims);
    return { context, pages: subtree, paths, evaluation };
  }

  /** One page, read by key, with a computed page's body generated; 404 when the revision has no such page. */
  async onePage(
    access: SpaceAccess,
    revisionId: string | undefined,
    pageId: string,
    options: { document?: boolean } = {},
  ): Promise<{ context: RevisionContext; page: PageWithBody }> {
    const { revision, context } = await this.open(access, revisionId);
    const page = await this.content.onePage(revision.id, pageId, { document: options.document });
    if (!page) throw contentError('content.page_not_found', `Page ${pageId} not found`);
    await this.computedPages.fill(context.organizationId, [page], true);
    if (options.document) await this.withDocument(page);
    return { context, page };
  }

  /** A page's document as `query` asks it evaluated (`getPageDocumentInRevisionById`). */
  async pageDocument(
    access: SpaceAccess,
    revisionId: string,
    pageId: string,
    query: DocumentQueryDto,
    claims?: Record<string, unknown>,
  ): Promise<{ page: PageWithBody; evaluation?: EvaluationContext }> {
    const { revision, context } = await this.open(access, revisionId);
    const page = await this.content.onePage(revision.id, pageId, { document: true });
    if (!page) throw contentError('content.page_not_found', `Page ${pageId} not found`);
    await this.computedPages.fill(context.organizationId, [page], true);
    await this.withDocument(page);
    return { page, evaluation: await this.evaluation.contextFor(revision, query, this.includesOf(query, page), claims) };
  }

  /** The page's document when its includes are to be loaded (`dereferenced`); none otherwise, so it is not parsed for nothing. */
  private includesOf(query: DocumentQueryDto, page: PageWithBody): JsonDocument[] {
    if (!query.dereferenced) return [];
    return [(page.documentJson ? JSON.parse(page.documentJson) : pageDocument(page.markdown ?? '')) as JsonDocument];
  }

  /** A reusable content of a revision (the active one when `revisionId` is undefined); 404 when it has none by that id. */
  async reusableContent(
    access: SpaceAccess,
    revisionId: string | undefined,
    reusableContentId: string,
  ): Promise<ReadableRevision & { reusable: RevisionReusableContent }> {
    const readable = await this.open(access, revisionId);
    const reusable = await this.content.findReusableContent(readable.revision.id, reusableContentId);
    if (!reusable) throw contentError('content.reusable_content_not_found', `Reusable content ${reusableContentId} not found`);
    return { ...readable, reusable };
  }

  /** A reusable content's document as `query` asks it evaluated (`getReusableContentDocumentInRevisionById`). */
  async reusableContentDocument(
    access: SpaceAccess,
    revisionId: string,
    reusableContentId: string,
    query: DocumentQueryDto,
    claims?: Record<string, unknown>,
  ): Promise<{ document: JsonDocument; evaluation?: EvaluationContext }> {
    const { revision } = await this.reusableContent(access, revisionId, reusableContentId);
    const [row] = await this.content.reusableContentBodies(revision.id, [reusableContentId]);
    await prepareDocuments([row?.markdown]);
    const document: JsonDocument = row?.markdown ? (pageDocument(row.markdown) as unknown as JsonDocument) : { object: 'document', data: {}, nodes: [] };
    return { document, evaluation: await this.evaluation.contextFor(revision, query, [document], claims) };
  }

  /**
   * The document of a computed source (`getComputedDocument`): what Quire computes itself
   * (`builtin:openapi`, from the organization's spec named by `dependencies.spec`), or 422 for
   * sources computed elsewhere (translations, integrations).
   */
  async computedDocument(access: SpaceAccess, source: Record<string, unknown>, seed: string): Promise<JsonDocument> {
    const type = source.type;
    if (typeof type !== 'string') throw contentError('content.invalid_computed_source', 'source.type: must be a string');
    if (type !== 'builtin:openapi') {
      throw contentError('content.computed_source_unsupported', `source.type: ${type} is not computed here (only builtin:openapi sources are)`);
    }
    const spec = (source.dependencies as { spec?: { ref?: { kind?: unknown; spec?: unknown } } } | undefined)?.spec?.ref;
    if (spec?.kind !== 'openapi' || typeof spec.spec !== 'string') {
      throw contentError('content.invalid_computed_source', 'source.dependencies.spec: must be {"ref": {"kind": "openapi", "spec": "<slug>"}}');
    }
    const props = source.props;
    if (typeof props !== 'object' || props === null || Array.isArray(props))
      throw contentError('content.invalid_computed_source', 'source.props: must be an object');
    const markdown = await this.computedPages.renderOne(access.space.organizationId, source as unknown as ComputedSource, seed);
    if (markdown === undefined) throw contentError('content.computed_source_unsupported', `source.type: ${type} has no generator here`);
    await prepareDocuments([markdown]);
    return pageDocument(markdown) as unknown as JsonDocument;
  }

  /**
   * Gives a page read as a document its stored document (`documents.document`, written with the
   * body). A body without one is parsed as the presenter answers it (large ones in the worker pool):
   * a computed page's generated body, or a body stored before documents were, until
   * `FillDocumentsJob` fills it.
   */
  private async withDocument(page: PageWithBody): Promise<void> {
    if (page.computed) page.documentJson = null;
    else if (page.documentJson === undefined && page.documentId) {
      const stored = await this.content.storedDocument(page.documentId);
      page.documentJson = stored?.document ?? null;
    }
    if (!page.documentJson) await prepareDocuments([page.markdown]);
  }

  /**
   * A body by its id (`getDocumentById`) as its public document: only a body that a revision of the
   * space uses (a page or a reusable content), never another space's; 404 otherwise.
   */
  async documentById(access: SpaceAccess, documentId: string): Promise<Record<string, unknown> | RawJson> {
    const notFound = () => contentError('content.document_not_found', `Document ${documentId} not found in space ${access.space.id}`);
    if (!(await this.content.spaceUsesDocument(access.space.id, documentId))) throw notFound();
    const stored = await this.content.storedDocument(documentId);
    if (!stored) throw notFound();
    if (stored.document) return new RawJson(stored.document);
    await prepareDocuments([stored.markdown]);
    return pageDocument(stored.markdown ?? '');
  }

  /** Paths of the pages `pages` link to that are not among them. */
  private linkedPaths(revisionId: string, pages: PageWithBody[]): Promise<Map<string, string | null>> {
    const known = new Set(pages.map((page) => page.pageId));
    const linked = new Set<string>();
    for (const page of pages) {
      if (!page.markdown) continue;
      for (const id of referencedPageIds(page.markdown)) if (!known.has(id)) linked.add(id);
    }
    return this.content.pathsOf(revisionId, [...linked]);
  }

  async listFiles(access: SpaceAccess, revisionId: string | undefined, query: RevisionFilesQueryDto): Promise<RevisionFilesPage> {
    const { revision, context } = await this.open(access, revisionId);
    return { context, page: await this.content.listFiles(revision.id, query) };
  }

  async file(access: SpaceAccess, revisionId: string | undefined, fileId: string): Promise<RevisionFileRead> {
    const { context, file } = await this.findFile(access, revisionId, fileId);
    return { context, file };
  }

  /** A file's bytes, checked like every read of the space (the download URL carries no secret). */
  async download(access: SpaceAccess, revisionId: string, fileId: string): Promise<{ file: RevisionFile; data: Buffer }> {
    const { file } = await this.findFile(access, revisionId, fileId);
    const data = await this.content.blobData(file.blobId);
    if (!data) throw contentError('content.file_data_missing', `File ${fileId} has no stored content`);
    return { file, data };
  }

  async findFile(access: SpaceAccess, revisionId: string | undefined, fileId: string): Promise<ReadableRevision & { file: RevisionFile }> {
    const readable = await this.open(access, revisionId);
    const file = await this.content.findFile(readable.revision.id, fileId);
    if (!file) throw contentError('content.file_not_found', `File ${fileId} not found`);
    return { ...readable, file };
  }
}
