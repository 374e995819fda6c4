import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { Blob } from './blob.entity';
import { ContentDocument } from './document.entity';
import { RevisionFile } from './revision-file.entity';
import type { PageWithBody, TreeRow } from './content.read-model';
import { RevisionPage } from './revision-page.entity';
import { RevisionReusableContent } from './revision-reusable-content.entity';
import { Revision } from './revision.entity';

/** Reads of a revision's content: tree, bodies, files. */
@Injectable()
export class ContentRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findRevision(spaceId: string, revisionId: string, manager: EntityManager = this.dataSource.manager): Promise<Revision | null> {
    return manager.findOneBy(Revision, { id: revisionId, spaceId });
  }

  /** Every page of the revision, siblings in position order. */
  async pages(revisionId: string, manager: EntityManager = this.dataSource.manager): Promise<PageWithBody[]> {
    const pages = await manager.find(RevisionPage, { where: { revisionId }, order: { parentId: 'ASC', position: 'ASC', pageId: 'ASC' } });
    return this.withBodies(pages, manager);
  }

  /** The tree rows of a revision, without bodies (what a new revision built on it carries over). */
  tree(revisionId: string, manager: EntityManager): Promise<RevisionPage[]> {
    return manager.find(RevisionPage, { where: { revisionId }, order: { parentId: 'ASC', position: 'ASC' } });
  }

  /**
   * The page and all its descendants (a recursive walk down the tree, not the whole revision). The
   * children are read through LATERAL … OFFSET 0: `revision_pages` is a view over layers, which the
   * planner cannot probe by a join key (it would hash the whole revision at each step), but into
   * both of whose branches it pushes `parent_id = sub.page_id` as an index condition.
   */
  async subtree(revisionId: string, where: { pageId: string } | { path: string }): Promise<PageWithBody[]> {
    const [column, value] = 'pageId' in where ? ['page_id', where.pageId] : ['path', where.path];
    const ids: { page_id: string }[] = await this.dataSource.query(
      `WITH RECURSIVE sub AS (
         SELECT page_id FROM revision_pages WHERE revision_id = $1 AND ${column} = $2
         UNION ALL
         SELECT c.page_id FROM sub, LATERAL (SELECT page_id FROM revision_pages WHERE revision_id = $1 AND parent_id = sub.page_id OFFSET 0) c
       )
       SELECT page_id FROM sub`,
      [revisionId, value],
    );
    if (ids.length === 0) return [];
    const pages = await this.dataSource.manager.find(RevisionPage, {
      where: { revisionId, pageId: In(ids.map((row) => row.page_id)) },
      order: { parentId: 'ASC', position: 'ASC' },
    });
    // The requested page first, its descendants after.
    pages.sort((a, b) => Number(b.pageId === ids[0].page_id) - Number(a.pageId === ids[0].page_id));
    return this.withBodies(pages, this.dataSource.manager);
  }

  /** Page id → path, for turning stable page refs into relative links: every page of the revision. */
  async pagePaths(revisionId: string): Promise<Map<string, string | null>> {
    const rows = await this.dataSource.manager.find(RevisionPage, { where: { revisionId }, select: { pageId: true, path: true } });
    return new Map(rows.map((row) => [row.pageId, row.path]));
  }

  /** Page id → path of only `pageIds` (read by primary key): the pages some bodies link to. */
  async pathsOf(revisionId: string, pageIds: string[]): Promise<Map<string, string | null>> {
    if (pageIds.length === 0) return new Map();
    const rows: { page_id: string; path: string | null }[] = await this.dataSource.query(
      `SELECT page_id, path FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`,
      [revisionId, pageIds],
    );
    return new Map(rows.map((row) => [row.page_id, row.path]));
  }

  /**
   * The revision's tree in the order it is shown (depth first, siblings by position), each page
   * with its depth and body, `batchSize` rows at a time from a server-side cursor: memory stays
   * flat however many pages the revision has. Pages that are not shown (groups below the top
   * level, and what is under them or under a link) are left out, as the presenter leaves them out.
   */
  async *streamTree(revisionId: string, batchSize = 500): AsyncGenerator<TreeRow[]> {
    const runner = this.dataSource.createQueryRunner('slave');
    await runner.connect();
    let open = false;
    try {
      await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      open = true;
      // The walk's row estimate is far above the truth (a recursive union over the layered view), which
      // made PostgreSQL JIT-compile it: 0.1–2 s of compilation for a 10,000-page walk that runs in 0.1 s.
      await runner.query('SET LOCAL jit = off');
      // The walk carries each page's row (one read of the view per page, no join back to it by key).
      await runner.query(
        `DECLARE revision_tree NO SCROLL CURSOR FOR
         WITH RECURSIVE walk AS (
           SELECT p.*, 0 AS depth, ARRAY[lpad(p.position::text, 10, '0') || p.page_id] AS sort
           FROM revision_pages p WHERE p.revision_id = $1 AND p.parent_id IS NULL
           UNION ALL
           SELECT c.*, w.depth + 1, w.sort || (lpad(c.position::text, 10, '0') || c.page_id)
           FROM walk w JOIN revision_pages c ON c.revision_id = $1 AND c.parent_id = w.page_id
           WHERE w.kind <> 'link' AND c.kind <> 'group'
         )
         SELECT w.*, d.markdown
         FROM walk w
         LEFT JOIN documents d ON d.id = w.document_id
         ORDER BY w.sort`,
        [revisionId],
      );
      for (;;) {
        const rows: TreeRowRaw[] = await runner.query(`FETCH ${Math.max(1, Math.floor(batchSize))} FROM revision_tree`);
        if (rows.length === 0) break;
        yield rows.map(treeRow);
      }
      await runner.query('COMMIT');
      open = false;
    } finally {
      if (open) await runner.query('ROLLBACK').catch(() => undefined);
      await runner.release();
    }
  }

  files(revisionId: string, manager: EntityManager = this.dataSource.manager): Promise<RevisionFile[]> {
    return manager.find(RevisionFile, { where: { revisionId }, order: { fileId: 'ASC' } });
  }

  /** Files in id order (ids are time-ordered, so oldest first). */
  listFiles(revisionId: string, query: ListQueryDto): Promise<Page<RevisionFile>> {
    const qb = this.dataSource.manager.createQueryBuilder(RevisionFile, 'f').where('f.revision_id = :revisionId', { revisionId });
    return paginate<RevisionFile>(qb, query, { list: 'files:id', columns: ['f.file_id'], direction: 'ASC', keyOf: (file) => [file.fileId] });
  }

  findFile(revisionId: string, fileId: string): Promise<RevisionFile | null> {
    return this.dataSource.manager.findOneBy(RevisionFile, { revisionId, fileId });
  }

  async blobData(blobId: string): Promise<Buffer | null> {
    const blob = await this.dataSource.manager.createQueryBuilder(Blob, 'b').addSelect('b.data').where('b.id = :blobId', { blobId }).getOne();
    return blob?.data ?? null;
  }

  reusableContents(revisionId: string, manager: EntityManager = this.dataSource.manager): Promise<RevisionReusableContent[]> {
    return manager.find(RevisionReusableContent, { where: { revisionId }, order: { reusableContentId: 'ASC' } });
  }

  private async withBodies(pages: RevisionPage[], manager: EntityManager): Promise<PageWithBody[]> {
    const ids = [...new Set(pages.map((page) => page.documentId).filter((id): id is string => id !== null))];
    const bodies = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 5000) {
      const documents = await manager.find(ContentDocument, { where: { id: In(ids.slice(i, i + 5000)) }, select: { id: true, markdown: true } });
      for (const document of documents) bodies.set(document.id, document.markdown);
    }
    return pages.map((page) => Object.assign(page, { markdown: page.documentId ? (bodies.get(page.documentId) ?? null) : null }));
  }
}

interface TreeRowRaw {
  depth: number;
  revision_id: string;
  page_id: string;
  parent_id: string | null;
  position: number;
  kind: RevisionPage['kind'];
  title: string;
  emoji: string | null;
  icon: string | null;
  slug: string | null;
  path: string | null;
  description: string | null;
  layout: RevisionPage['layout'];
  cover: RevisionPage['cover'];
  hidden: boolean;
  no_index: boolean;
  no_robots_index: boolean;
  variables: RevisionPage['variables'];
  document_id: string | null;
  link_target: RevisionPage['linkTarget'];
  computed: RevisionPage['computed'];
  created_at: Date;
  updated_at: Date;
  markdown: string | null;
}

function treeRow(row: TreeRowRaw): TreeRow {
  return {
    depth: row.depth,
    revisionId: row.revision_id,
    pageId: row.page_id,
    parentId: row.parent_id,
    position: row.position,
    kind: row.kind,
    title: row.title,
    emoji: row.emoji,
    icon: row.icon,
    slug: row.slug,
    path: row.path,
    description: row.description,
    layout: row.layout,
    cover: row.cover,
    hidden: row.hidden,
    noIndex: row.no_index,
    noRobotsIndex: row.no_robots_index,
    variables: row.variables,
    documentId: row.document_id,
    linkTarget: row.link_target,
    computed: row.computed,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    markdown: row.markdown,
  };
}
