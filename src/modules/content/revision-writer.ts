import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager, In, QueryRunner } from 'typeorm';
import { newId } from '../../common/ids';
import { ContentDocument } from './document.entity';
import { copyRows, jsonb, textArray } from './copy-rows';
import { collectLinks } from './links/link-classifier';
import { splitSections } from './markdown/markdown';
import { storedDocumentJson } from './markdown/page-document';
import { prepareMarkdown } from './text-work/text-workers';
import { RevisionFile } from './revision-file.entity';
import { ComputedSource, RevisionPage } from './revision-page.entity';
import type { RevisionReusableContent } from './revision-reusable-content.entity';
import { Revision, RevisionGit, RevisionType } from './revision.entity';
import { derivePaths, duplicateSiblingSlugs } from './tree/slugs';
import { deriveTreeKeys } from './tree/tree-keys';
import { contentError } from './content.errors';
import { PreparedSearchTable, SEARCH_CONFIG, SearchIndexWritesRepository } from '../space-writes/search-index-writes.repository';
import { DOCUMENT_GC_LOCK } from './revision-lifecycle.repository';

// A tsvector holds at most 1 MB; longer bodies are indexed on their beginning.
const MAX_INDEXED_CHARS = 400_000;
const CHUNK = 500;
// Rows per bulk statement (one JSON or array parameter each).
const BULK_CHUNK = 5000;
/** New bodies from which a write stores them before referencing them, on connections of their own. */
const PRESTORE_AFTER = 2000;
/** Connections that store a large write's bodies at once (PostgreSQL lexes one body per backend at a time). */
const PRESTORE_CONNECTIONS = 2;
/** Bodies per pre-store statement (each one short transaction). */
const PRESTORE_CHUNK = 1000;

/** A page of a revision being written: either new markdown, or the document of the page it carries over. */
export type DraftPage = Omit<RevisionPage, 'revisionId' | 'path' | 'documentId' | 'computed' | 'createdAt' | 'updatedAt'> & {
  /** The source of a computed page; absent or null for a page written by hand. */
  computed?: ComputedSource | null;
  /** New body; undefined keeps `documentId`. Empty markdown means an empty page. */
  markdown?: string;
  documentId?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
};

/** A page row as stored: a draft page with its path, its place in the shown tree (`tree/tree-keys.ts`) and times settled. */
export type StoredPage = Omit<DraftPage, 'markdown'> & { path: string | null; treeKey: string; createdAt: Date; updatedAt: Date };

/** A new document page with every optional setting at its default. */
export function documentPage(page: Pick<DraftPage, 'pageId' | 'parentId' | 'position' | 'title' | 'slug'> & Partial<DraftPage>): DraftPage {
  return {
    kind: 'document',
    emoji: null,
    icon: null,
    description: null,
    layout: null,
    cover: null,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    linkTarget: null,
    ...page,
  };
}

export interface DraftFile extends Omit<RevisionFile, 'revisionId' | 'blobId' | 'createdAt'> {
  /** New bytes (stored as a blob if not already there); undefined keeps `blobId`. */
  data?: Buffer;
  blobId?: string;
  createdAt?: Date;
}

/** A reusable content of a revision being written: new markdown, or the document it carries over. */
export type DraftReusableContent = Omit<RevisionReusableContent, 'revisionId' | 'documentId'> & { documentId?: string | null; markdown?: string };

export interface RevisionDraft {
  spaceId: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  pages: DraftPage[];
  files: DraftFile[];
  reusableContents?: DraftReusableContent[];
  variables?: Record<string, string | number | boolean>;
  git?: RevisionGit | null;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A revision `RevisionWriter.write` wrote, with the search table it started building apart for it
 * when it is large (`SearchIndexWritesRepository.prepare`): `SpaceUnitOfWork.commitRevision` swaps
 * that table in when it activates the revision.
 */
export type WrittenWhole = Revision & { searchTable: PreparedSearchTable | null };

/**
 * Writes a new immutable revision: bodies and bytes go to the content-addressed stores (only the
 * ones not there yet), then the tree, the files and the revision's classified links. Runs inside
 * the caller's transaction, so a failure leaves nothing behind.
 */
@Injectable()
export class RevisionWriter {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly searchIndex: SearchIndexWritesRepository,
  ) {}

  /**
   * A write of many new bodies (`PRESTORE_AFTER`) stores them first, on `PRESTORE_CONNECTIONS`
   * connections of their own in short transactions (`prestoreDocuments`), while its transaction
   * writes the links; the tree rows then reference them. Bodies stored for a write that fails are
   * unreferenced, hence invisible, until document GC collects them.
   */
  async write(draft: RevisionDraft, em: EntityManager, { activated = true }: { activated?: boolean } = {}): Promise<WrittenWhole> {
    const now = new Date();
    const paths = this.checkTree(draft.pages);
    const keys = deriveTreeKeys(draft.pages);

    const markdownById = this.hashBodies([...draft.pages, ...(draft.reusableContents ?? [])]);
    // Links, search sections and documents of large bodies, derived in the worker pool (422 past its time limit).
    await prepareMarkdown(markdownById.values());
    // Never more connections than the pool has beside this transaction's (a pool of one stores in the transaction).
    const poolSize = Number((this.dataSource.options.extra as { max?: number } | undefined)?.max ?? 10);
    const helpers = Math.min(PRESTORE_CONNECTIONS, poolSize - 1, Math.ceil(markdownById.size / PRESTORE_CHUNK));
    const prestore = markdownById.size >= PRESTORE_AFTER && helpers > 0;
    if (prestore) {
      // Held until this transaction ends, so GC cannot take a body between its store and the commit that references it.
      await em.query(`SELECT pg_advisory_xact_lock_shared(${DOCUMENT_GC_LOCK})`);
    } else {
      await this.storeDocuments(markdownById, em);
    }
    for (const file of draft.files) {
      if (file.data) file.blobId = await this.storeBlob(file.data, em);
      if (!file.blobId) throw new Error(`file ${file.fileId} has neither bytes nor a blob`);
    }

    const revision = em.create(Revision, {
      id: newId(),
      spaceId: draft.spaceId,
      parents: draft.parents,
      type: draft.type,
      createdBy: draft.createdBy,
      variables: draft.variables ?? {},
      git: draft.git ?? null,
    });
    await em.insert(Revision, revision);

    const pageRows = draft.pages.map((page) => {
      const { markdown: _markdown, ...row } = page;
      return {
        ...row,
        revisionId: revision.id,
        path: paths.get(page.pageId) ?? null,
        treeKey: keys.get(page.pageId) as string,
        createdAt: page.createdAt ?? now,
        updatedAt: page.updatedAt ?? now,
      };
    });
    let searchTable: PreparedSearchTable | null = null;
    if (prestore) {
      // Links need no stored body (only the markdown): they are written while the bodies are stored.
      // The connections are taken first: computing the links keeps the event loop busy for seconds,
      // longer than the pool's connect timeout.
      const runners = await this.connections(helpers);
      try {
        await settleAll([this.prestoreDocuments(markdownById, runners), this.writeLinks(revision.id, pageRows, draft.files, markdownById, em)]);
      } finally {
        await Promise.all(runners.map((runner) => runner.release()));
      }
      // Every body is committed now: a large revision's search table is built apart while this transaction
      // writes the tree, unless the revision is not to be activated (a change request's).
      if (activated) searchTable = await this.searchIndex.prepare(draft.spaceId, revision.id, pageRows, em);
    }
    try {
      await this.insertPages(revision.id, pageRows, em);
      const fileRows = draft.files.map(({ data: _data, ...file }) => ({
        ...file,
        revisionId: revision.id,
        blobId: file.blobId as string,
        createdAt: file.createdAt ?? now,
      }));
      await this.insertFiles(revision.id, fileRows, em);
      if (draft.reusableContents?.length) {
        const contents = draft.reusableContents;
        await em.query(
          `INSERT INTO revision_reusable_content_rows (revision_id, reusable_content_id, title, document_id)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])`,
          [
            revision.id,
            contents.map((content) => content.reusableContentId),
            contents.map((content) => content.title),
            contents.map((content) => content.documentId ?? null),
          ],
        );
      }

      if (!prestore) await this.writeLinks(revision.id, pageRows, draft.files, markdownById, em);
      return Object.assign(await em.findOneByOrFail(Revision, { id: revision.id }), { searchTable });
    } catch (error) {
      await this.searchIndex.abandon(searchTable);
      throw error;
    }
  }

  /**
   * Stores the bodies of `pages` that carry `markdown` (setting their `documentId`) and the bytes of
   * `files` that carry `data` (setting their `blobId`): the content-addressed part of a write, for
   * writers that copy the rest of a revision themselves (`RevisionDeltaWriter`).
   */
  async storeContent(pages: DraftPage[], files: DraftFile[], em: EntityManager): Promise<Map<string, string>> {
    const markdownById = this.hashBodies(pages);
    await prepareMarkdown(markdownById.values());
    await this.storeDocuments(markdownById, em);
    for (const file of files) if (file.data) file.blobId = await this.storeBlob(file.data, em);
    return markdownById;
  }

  private checkTree(pages: DraftPage[]): Map<string, string | null> {
    const nodes = pages.map((page) => ({ id: page.pageId, parentId: page.parentId, slug: page.slug }));
    const duplicates = duplicateSiblingSlugs(nodes);
    if (duplicates.length > 0) throw contentError('content.duplicate_slug', `slug: pages ${duplicates.slice(0, 5).join(', ')} repeat a sibling's slug`);
    try {
      return derivePaths(nodes);
    } catch (error) {
      throw contentError('content.invalid_pages', `pages: ${(error as Error).message}`);
    }
  }

  /** Sets the `documentId` of every page (or reusable content) that carries `markdown`; the distinct new bodies by id. */
  private hashBodies(pages: { markdown?: string; documentId?: string | null }[]): Map<string, string> {
    const markdownById = new Map<string, string>();
    for (const page of pages) {
      if (page.markdown === undefined) continue;
      page.documentId = page.markdown.trim() === '' ? null : sha256(page.markdown);
      if (page.documentId) markdownById.set(page.documentId, page.markdown);
    }
    return markdownById;
  }

  /** Stores the bodies not stored yet in the caller's transaction. */
  private async storeDocuments(markdownById: Map<string, string>, em: EntityManager): Promise<void> {
    const entries = [...markdownById.entries()];
    for (let i = 0; i < entries.length; i += BULK_CHUNK) await this.insertDocuments(entries.slice(i, i + BULK_CHUNK), em);
  }

  /**
   * Stores the bodies not stored yet on `PRESTORE_CONNECTIONS` pool connections, `PRESTORE_CHUNK`
   * bodies per statement, each statement its own transaction (a body and its sections commit
   * together, so a stored body always has its sections). The caller holds `DOCUMENT_GC_LOCK`.
   * Never inside the revision's transaction: a body it inserted would make a concurrent write of
   * the same body wait for that whole transaction.
   */
  private async prestoreDocuments(markdownById: Map<string, string>, runners: QueryRunner[]): Promise<void> {
    const entries = [...markdownById.entries()];
    let next = 0;
    let failed = false;
    const worker = async (runner: QueryRunner) => {
      try {
        while (!failed && next < entries.length) {
          const chunk = entries.slice(next, (next += PRESTORE_CHUNK));
          await this.insertDocuments(chunk, runner.manager);
        }
      } catch (error) {
        failed = true;
        throw error;
      }
    };
    await settleAll(runners.map(worker));
  }

  /** `count` connections of the pool, or none (and an error) if one cannot be had. */
  private async connections(count: number): Promise<QueryRunner[]> {
    const runners = Array.from({ length: count }, () => this.dataSource.createQueryRunner());
    const connected = await Promise.allSettled(runners.map((runner) => runner.connect()));
    const failure = connected.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      await Promise.all(runners.map((runner) => runner.release()));
      throw failure.reason;
    }
    return runners;
  }

  /**
   * Stores the bodies of `entries` not stored yet, with their public document and their search
   * sections, in one statement. A body is turned into lexemes once (`documents.tsv`, for page-level
   * search); its sections keep only their text and are matched when a search returns their page.
   * Documents and sections are derived in JavaScript only for bodies not found by the first
   * look-up (large ones already were, in the worker pool: `prepareMarkdown`), and sections
   * inserted for those the insert reports as new.
   */
  private async insertDocuments(entries: [string, string][], em: EntityManager): Promise<void> {
    const existing = new Set(
      ((await em.query(`SELECT id FROM documents WHERE id = ANY($1::text[])`, [entries.map(([id]) => id)])) as { id: string }[]).map((row) => row.id),
    );
    const fresh = entries.filter(([id]) => !existing.has(id));
    if (fresh.length === 0) return;
    const sections = fresh.map(([, markdown]) => splitSections(markdown));
    const documents = fresh.map(([, markdown]) => storedDocumentJson(markdown));
    const rows = fresh.flatMap(([id], i) => sections[i].map((section, position) => ({ id, position, ...section })));
    await em.query(
      `WITH inserted AS (
         INSERT INTO documents (id, markdown, tsv, document)
         SELECT d.id, d.markdown,
                setweight(to_tsvector('${SEARCH_CONFIG}', left(d.headings, ${MAX_INDEXED_CHARS})), 'B') ||
                setweight(to_tsvector('${SEARCH_CONFIG}', left(d.body, ${MAX_INDEXED_CHARS})), 'C'),
                j.document::jsonb
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS d (id, markdown, headings, body, n)
         JOIN json_array_elements($10::json) WITH ORDINALITY AS j (document, n) USING (n)
         ON CONFLICT (id) DO NOTHING
         RETURNING id
       )
       INSERT INTO document_sections (document_id, position, anchor, heading, body)
       SELECT s.document_id, s.position, s.anchor, s.heading, s.body
       FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[]) AS s (document_id, position, anchor, heading, body)
       WHERE s.document_id IN (SELECT id FROM inserted)`,
      [
        fresh.map(([id]) => id),
        fresh.map(([, markdown]) => markdown),
        sections.map((list) => list.map((section) => section.heading).join('\n')),
        sections.map((list) => list.map((section) => section.body).join('\n')),
        rows.map((row) => row.id),
        rows.map((row) => row.position),
        rows.map((row) => row.anchor),
        rows.map((row) => row.heading),
        rows.map((row) => row.body),
        // One JSON array rather than a text[]: PostgreSQL reads an array literal's quotes one escape at a
        // time, and a document is mostly quotes (bench/document-store.bench.ts).
        `[${documents.join(',')}]`,
      ],
    );
  }

  /** Tree rows of a revision (the stored table: `revision_pages` is the view that resolves layers), in one COPY. */
  async insertPages(revisionId: string, rows: StoredPage[], em: EntityManager): Promise<void> {
    await copyRows(
      em,
      'revision_page_rows',
      ['revision_id', 'page_id', 'parent_id', 'position', 'kind', 'title', 'emoji', 'icon', 'slug', 'path', 'description', 'layout', 'cover'].concat([
        'hidden',
        'no_index',
        'no_robots_index',
        'variables',
        'document_id',
        'link_target',
        'computed',
        'created_at',
        'updated_at',
        'tree_key',
      ]),
      rows.map((page) => [
        revisionId,
        page.pageId,
        page.parentId,
        page.position,
        page.kind,
        page.title,
        page.emoji,
        page.icon,
        page.slug,
        page.path,
        page.description,
        jsonb(page.layout),
        jsonb(page.cover),
        page.hidden ?? false,
        page.noIndex ?? false,
        page.noRobotsIndex ?? false,
        jsonb(page.variables ?? {}),
        page.documentId ?? null,
        jsonb(page.linkTarget),
        jsonb(page.computed),
        page.createdAt,
        page.updatedAt,
        page.treeKey,
      ]),
    );
  }

  /** File rows of a revision (the stored table: `revision_files` is the view that resolves layers). */
  async insertFiles(revisionId: string, rows: Omit<RevisionFile, 'revisionId'>[], em: EntityManager): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const part = rows.slice(i, i + CHUNK);
      await em.query(
        `INSERT INTO revision_file_rows (revision_id, file_id, name, content_type, size, width, height, blob_id, created_at)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::int[], $8::text[], $9::timestamptz[])`,
        [
          revisionId,
          part.map((file) => file.fileId),
          part.map((file) => file.name),
          part.map((file) => file.contentType),
          part.map((file) => file.size),
          part.map((file) => file.width),
          part.map((file) => file.height),
          part.map((file) => file.blobId),
          part.map((file) => file.createdAt),
        ],
      );
    }
  }

  private async storeBlob(data: Buffer, em: EntityManager): Promise<string> {
    const id = sha256(data);
    await em.query(`INSERT INTO blobs (id, data, size) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [id, data, data.length]);
    return id;
  }

  /** Classifies every link of the revision against its own pages and files. */
  private async writeLinks(
    revisionId: string,
    pages: { pageId: string; path: string | null; kind: string; documentId?: string | null }[],
    files: DraftFile[],
    known: Map<string, string>,
    em: EntityManager,
  ): Promise<void> {
    const missing = [...new Set(pages.map((page) => page.documentId).filter((id): id is string => !!id && !known.has(id)))];
    for (let i = 0; i < missing.length; i += CHUNK * 4) {
      const stored = await em.find(ContentDocument, { where: { id: In(missing.slice(i, i + CHUNK * 4)) }, select: { id: true, markdown: true } });
      for (const document of stored) known.set(document.id, document.markdown);
    }
    const context = {
      pageIds: new Set(pages.map((page) => page.pageId)),
      pagePaths: new Map(pages.filter((page) => page.path !== null).map((page) => [page.path as string, page.pageId])),
      fileIds: new Set(files.map((file) => file.fileId)),
    };
    const bodies = pages
      .filter((page) => page.documentId)
      .map((page) => ({ pageId: page.pageId, path: page.path ?? '', markdown: known.get(page.documentId as string) ?? '' }));
    const rows = collectLinks(bodies, context).map((link) => ({
      targetKey: link.key,
      status: link.status,
      target: link.target,
      pages: link.pages,
    }));
    await copyRows(
      em,
      'revision_link_rows',
      ['revision_id', 'target_key', 'status', 'target', 'pages'],
      rows.map((row) => [revisionId, row.targetKey, row.status, jsonb(row.target), textArray(row.pages)]),
    );
  }
}

/** Waits for every promise (no query is left running on a connection that is handed back), then throws the first failure. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
}
