import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { EntityManager, In } from 'typeorm';
import { newId } from '../../common/ids';
import { ContentDocument } from './document.entity';
import { collectLinks } from './links/link-classifier';
import { splitSections } from './markdown/markdown';
import { RevisionFile } from './revision-file.entity';
import { ComputedSource, RevisionPage } from './revision-page.entity';
import type { RevisionReusableContent } from './revision-reusable-content.entity';
import { Revision, RevisionGit, RevisionType } from './revision.entity';
import { derivePaths, duplicateSiblingSlugs } from './tree/slugs';
import { contentError } from './content.errors';
import { SEARCH_CONFIG } from '../space-writes/search-index-writes.repository';

// A tsvector holds at most 1 MB; longer bodies are indexed on their beginning.
const MAX_INDEXED_CHARS = 400_000;
const CHUNK = 500;
// Rows per bulk statement (one JSON or array parameter each).
const BULK_CHUNK = 5000;

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

export interface RevisionDraft {
  spaceId: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  pages: DraftPage[];
  files: DraftFile[];
  reusableContents?: Omit<RevisionReusableContent, 'revisionId'>[];
  variables?: Record<string, string | number | boolean>;
  git?: RevisionGit | null;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Writes a new immutable revision: bodies and bytes go to the content-addressed stores (only the
 * ones not there yet), then the tree, the files and the revision's classified links. Runs inside
 * the caller's transaction, so a failure leaves nothing behind.
 */
@Injectable()
export class RevisionWriter {
  async write(draft: RevisionDraft, em: EntityManager): Promise<Revision> {
    const now = new Date();
    const paths = this.checkTree(draft.pages);

    const markdownById = new Map<string, string>();
    for (const page of draft.pages) {
      if (page.markdown === undefined) continue;
      page.documentId = page.markdown.trim() === '' ? null : sha256(page.markdown);
      if (page.documentId) markdownById.set(page.documentId, page.markdown);
    }
    await this.storeDocuments(markdownById, em);
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
      return { ...row, revisionId: revision.id, path: paths.get(page.pageId) ?? null, createdAt: page.createdAt ?? now, updatedAt: page.updatedAt ?? now };
    });
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
          contents.map((content) => content.documentId),
        ],
      );
    }

    await this.writeLinks(revision.id, pageRows, draft.files, markdownById, em);
    return em.findOneByOrFail(Revision, { id: revision.id });
  }

  /**
   * Stores the bodies of `pages` that carry `markdown` (setting their `documentId`) and the bytes of
   * `files` that carry `data` (setting their `blobId`): the content-addressed part of a write, for
   * writers that copy the rest of a revision themselves (`RevisionDeltaWriter`).
   */
  async storeContent(pages: DraftPage[], files: DraftFile[], em: EntityManager): Promise<Map<string, string>> {
    const markdownById = new Map<string, string>();
    for (const page of pages) {
      if (page.markdown === undefined) continue;
      page.documentId = page.markdown.trim() === '' ? null : sha256(page.markdown);
      if (page.documentId) markdownById.set(page.documentId, page.markdown);
    }
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

  /**
   * Stores bodies not stored yet, with their search sections. A body is turned into lexemes once
   * (`documents.tsv`, for page-level search); its sections keep only their text and are matched
   * when a search returns their page. Sections are split in JavaScript only for bodies the insert
   * reports as new.
   */
  private async storeDocuments(markdownById: Map<string, string>, em: EntityManager): Promise<void> {
    const entries = [...markdownById.entries()];
    for (let i = 0; i < entries.length; i += BULK_CHUNK) {
      const chunk = entries.slice(i, i + BULK_CHUNK);
      const existing = new Set(
        ((await em.query(`SELECT id FROM documents WHERE id = ANY($1::text[])`, [chunk.map(([id]) => id)])) as { id: string }[]).map((row) => row.id),
      );
      const fresh = chunk.filter(([id]) => !existing.has(id));
      if (fresh.length === 0) continue;
      const sections = new Map(fresh.map(([id, markdown]) => [id, splitSections(markdown)]));
      const headings = fresh.map(([id]) => (sections.get(id) ?? []).map((section) => section.heading).join('\n'));
      const bodies = fresh.map(([id]) => (sections.get(id) ?? []).map((section) => section.body).join('\n'));
      const inserted: { id: string }[] = await em.query(
        `INSERT INTO documents (id, markdown, tsv)
         SELECT d.id, d.markdown,
                setweight(to_tsvector('${SEARCH_CONFIG}', left(d.headings, ${MAX_INDEXED_CHARS})), 'B') ||
                setweight(to_tsvector('${SEARCH_CONFIG}', left(d.body, ${MAX_INDEXED_CHARS})), 'C')
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d (id, markdown, headings, body)
         ON CONFLICT (id) DO NOTHING
         RETURNING id`,
        [fresh.map(([id]) => id), fresh.map(([, markdown]) => markdown), headings, bodies],
      );
      const rows = inserted.flatMap(({ id }) => (sections.get(id) ?? []).map((section, position) => ({ id, position, ...section })));
      for (let j = 0; j < rows.length; j += BULK_CHUNK * 4) {
        const part = rows.slice(j, j + BULK_CHUNK * 4);
        await em.query(
          `INSERT INTO document_sections (document_id, position, anchor, heading, body)
           SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])`,
          [
            part.map((row) => row.id),
            part.map((row) => row.position),
            part.map((row) => row.anchor),
            part.map((row) => row.heading),
            part.map((row) => row.body),
          ],
        );
      }
    }
  }

  /** The revision's tree rows, many per statement (a JSON array turned into rows by PostgreSQL). */
  private async insertPages(
    revisionId: string,
    rows: (Omit<DraftPage, 'markdown'> & { path: string | null; createdAt: Date; updatedAt: Date })[],
    em: EntityManager,
  ) {
    for (let i = 0; i < rows.length; i += BULK_CHUNK) {
      const json = rows.slice(i, i + BULK_CHUNK).map((page) => ({
        page_id: page.pageId,
        parent_id: page.parentId,
        position: page.position,
        kind: page.kind,
        title: page.title,
        emoji: page.emoji,
        icon: page.icon,
        slug: page.slug,
        path: page.path,
        description: page.description,
        layout: page.layout,
        cover: page.cover,
        hidden: page.hidden,
        no_index: page.noIndex,
        no_robots_index: page.noRobotsIndex,
        variables: page.variables ?? {},
        document_id: page.documentId ?? null,
        link_target: page.linkTarget,
        computed: page.computed ?? null,
        created_at: page.createdAt,
        updated_at: page.updatedAt,
      }));
      await em.query(
        `INSERT INTO revision_page_rows (revision_id, page_id, parent_id, position, kind, title, emoji, icon, slug, path, description, layout, cover,
                                     hidden, no_index, no_robots_index, variables, document_id, link_target, computed, created_at, updated_at)
         SELECT $1, p.page_id, p.parent_id, p.position, p.kind, p.title, p.emoji, p.icon, p.slug, p.path, p.description, p.layout, p.cover,
                coalesce(p.hidden, false), coalesce(p.no_index, false), coalesce(p.no_robots_index, false), coalesce(p.variables, '{}'),
                p.document_id, p.link_target, p.computed, p.created_at, p.updated_at
         FROM jsonb_to_recordset($2::jsonb) AS p (page_id text, parent_id text, position int, kind text, title text, emoji text, icon text, slug text,
              path text, description text, layout jsonb, cover jsonb, hidden boolean, no_index boolean, no_robots_index boolean, variables jsonb,
              document_id text, link_target jsonb, computed jsonb, created_at timestamptz, updated_at timestamptz)`,
        [revisionId, JSON.stringify(json)],
      );
    }
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
    for (let i = 0; i < rows.length; i += BULK_CHUNK) {
      await em.query(
        `INSERT INTO revision_link_rows (revision_id, target_key, status, target, pages)
         SELECT $1, l.target_key, l.status, l.target, l.pages
         FROM jsonb_to_recordset($2::jsonb) AS l (target_key text, status text, target jsonb, pages text[])`,
        [
          revisionId,
          JSON.stringify(rows.slice(i, i + BULK_CHUNK).map((row) => ({ target_key: row.targetKey, status: row.status, target: row.target, pages: row.pages }))),
        ],
      );
    }
  }
}
