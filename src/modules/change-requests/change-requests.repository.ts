import { ContentRepository } from '../content/content.repository';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, paginate } from '../../common/pagination/paginate';
import { User } from '../users/user.entity';
import { ChangeRequestContributor } from './change-request-contributor.entity';
import { ChangeRequest, ChangeRequestStatus } from './change-request.entity';
import type { ListChangeRequestsQueryDto } from './dto/list-change-requests-query.dto';
import type { TreePage } from './authoring/tree-editor';
import type { PageVersions } from './merge/partial-merge';
import type { RevisionFile } from '../content/revision-file.entity';

/** Every query of change requests and their contributors. */
@Injectable()
export class ChangeRequestsRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly content: ContentRepository,
  ) {}

  /** By id or by number in the space (`changeRequestId` is either, section 4.1); `lock` takes the row for the transaction. */
  find(spaceId: string, idOrNumber: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<ChangeRequest | null> {
    const qb = manager.createQueryBuilder(ChangeRequest, 'cr').where('cr.space_id = :spaceId', { spaceId });
    if (/^[1-9]\d{0,8}$/.test(idOrNumber)) qb.andWhere('cr.number = :number', { number: Number(idOrNumber) });
    else qb.andWhere('cr.id = :id', { id: idOrNumber });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  /** The change request whose merge produced `revisionId`. */
  mergedInto(spaceId: string, revisionId: string): Promise<ChangeRequest | null> {
    return this.dataSource.manager.findOneBy(ChangeRequest, { spaceId, revisionMerged: revisionId });
  }

  async insert(changeRequest: Omit<ChangeRequest, 'createdAt' | 'updatedAt' | 'openComments'>, manager: EntityManager): Promise<ChangeRequest> {
    await manager.insert(ChangeRequest, changeRequest);
    return manager.findOneByOrFail(ChangeRequest, { id: changeRequest.id });
  }

  async update(id: string, changes: Partial<ChangeRequest>, manager: EntityManager): Promise<ChangeRequest> {
    await manager.update(ChangeRequest, { id }, { ...changes, updatedAt: () => 'now()' } as object);
    return manager.findOneByOrFail(ChangeRequest, { id });
  }

  async addContributor(changeRequestId: string, userId: string, manager: EntityManager): Promise<void> {
    // Each write counts one edit (the public contributor's `count`), and dates the last one.
    await manager.query(
      `INSERT INTO change_request_contributors (change_request_id, user_id) VALUES ($1, $2)
       ON CONFLICT (change_request_id, user_id) DO UPDATE SET edits = change_request_contributors.edits + 1, updated_at = now()`,
      [changeRequestId, userId],
    );
  }

  /** Newest first; keyset on (created_at, id). */
  list(spaceId: string, status: ChangeRequestStatus, query: ListChangeRequestsQueryDto): Promise<Page<ChangeRequest>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(ChangeRequest, 'cr')
      .where('cr.space_id = :spaceId', { spaceId })
      .andWhere('cr.status = :status', { status });
    if (query.creator) qb.andWhere('cr.created_by = :creator', { creator: query.creator });
    if (query.contributor) {
      const sub = qb
        .subQuery()
        .select('1')
        .from(ChangeRequestContributor, 'c')
        .where('c.change_request_id = cr.id')
        .andWhere('c.user_id = :contributor')
        .getQuery();
      qb.andWhere(`EXISTS ${sub}`, { contributor: query.contributor });
    }
    return paginate<ChangeRequest>(qb, query, {
      list: 'change-requests:created:desc',
      columns: ['cr.created_at', 'cr.id'],
      direction: 'DESC',
      keyOf: (cr) => [cr.createdAt, cr.id],
    });
  }

  /**
   * A revision's tree rows as plain objects (no entity hydration: a merge reads three trees of the
   * space's size), ordered like `ContentRepository.tree`.
   */
  async treeRows(revisionId: string, manager: EntityManager): Promise<TreePage[]> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${TREE_COLUMNS} FROM revision_pages WHERE revision_id = $1 ORDER BY parent_id, position`,
      [revisionId],
    );
    return rows.map(treePage);
  }

  /**
   * The pages whose rows differ, in anything the merge compares (`MERGED_COLUMNS`), between `base`
   * and `ours` or between `base` and `theirs` (present in one and not the other included), with
   * their three rows. One FULL JOIN of the three revisions' rows in SQL (compared there, not in JS),
   * then the differing pages' rows by primary key. When the three are one full revision and layers
   * over it (the usual case: a change request's head, main and their base between compactions), only
   * the layers' own pages are compared, so the cost follows the changes, not the space.
   */
  async changedPages(base: string, ours: string, theirs: string, manager: EntityManager): Promise<PageVersions<TreePage>[]> {
    // Revisions that are layers over one full revision can only differ in their layers' own pages.
    const candidates = await this.content.pagesDifferingWithinBase([base, ours, theirs], manager);
    if (candidates?.length === 0) return [];
    const only = candidates ? ' AND page_id = ANY($4::text[])' : '';
    const side = (param: string) => `SELECT ${MERGED_COLUMNS} FROM revision_pages WHERE revision_id = ${param}${only}`;
    const differing: { page_id: string }[] = await manager.query(
      `WITH b AS (${side('$1')}), o AS (${side('$2')}), t AS (${side('$3')})
       SELECT coalesce(b.page_id, o.page_id, t.page_id) AS page_id
         FROM b FULL JOIN o ON o.page_id = b.page_id
                FULL JOIN t ON t.page_id = coalesce(b.page_id, o.page_id)
        WHERE b IS DISTINCT FROM o OR b IS DISTINCT FROM t`,
      candidates ? [base, ours, theirs, candidates] : [base, ours, theirs],
    );
    if (differing.length === 0) return [];
    // A second query, so the planner, which cannot guess how few pages differ, reads them by primary key.
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT revision_id, ${TREE_COLUMNS} FROM revision_pages WHERE revision_id = ANY(ARRAY[$1, $2, $3]::text[]) AND page_id = ANY($4::text[])`,
      [base, ours, theirs, differing.map((row) => row.page_id)],
    );
    const versions = new Map<string, PageVersions<TreePage>>();
    for (const row of rows) {
      const page = treePage(row);
      const entry = versions.get(page.pageId) ?? { pageId: page.pageId };
      // base and theirs are one revision when nothing happened on main since the change request left it.
      if (row.revision_id === base) entry.base = page;
      if (row.revision_id === ours) entry.ours = { ...page };
      if (row.revision_id === theirs) entry.theirs = { ...page };
      versions.set(page.pageId, entry);
    }
    return [...versions.values()];
  }

  /** A revision's pages under the given parents (null: top level), by `revision_pages_children_idx`. */
  async childRows(revisionId: string, parentIds: (string | null)[], manager: EntityManager): Promise<TreePage[]> {
    if (parentIds.length === 0) return [];
    const ids = parentIds.filter((id): id is string => id !== null);
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${TREE_COLUMNS} FROM revision_pages
        WHERE revision_id = $1 AND (parent_id = ANY($2::text[]) OR ($3 AND parent_id IS NULL))
        ORDER BY parent_id, position`,
      [revisionId, ids, ids.length < parentIds.length],
    );
    return rows.map(treePage);
  }

  /** A revision's pages with the given ids and all their ancestors (walked up by primary key). */
  async ancestorRows(revisionId: string, pageIds: string[], manager: EntityManager): Promise<TreePage[]> {
    if (pageIds.length === 0) return [];
    const rows: Record<string, unknown>[] = await manager.query(
      `WITH RECURSIVE up (page_id, parent_id) AS (
         SELECT page_id, parent_id FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])
         UNION
         SELECT p.page_id, p.parent_id FROM up JOIN revision_pages p ON p.revision_id = $1 AND p.page_id = up.parent_id)
       SELECT ${TREE_COLUMNS.replace(/(\w+)/g, 'p.$1')} FROM up JOIN revision_pages p ON p.revision_id = $1 AND p.page_id = up.page_id`,
      [revisionId, pageIds],
    );
    return rows.map(treePage);
  }

  /** Files of `ours` in neither `base` nor `theirs`: what a change request adds (it never deletes files). */
  async addedFiles(base: string, ours: string, theirs: string, manager: EntityManager): Promise<Omit<RevisionFile, 'revisionId'>[]> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT file_id, name, content_type, size, width, height, blob_id, created_at FROM revision_files o
        WHERE o.revision_id = $2
          AND NOT EXISTS (SELECT 1 FROM revision_files f WHERE f.revision_id IN ($1, $3) AND f.file_id = o.file_id)
        ORDER BY o.created_at, o.file_id`,
      [base, ours, theirs],
    );
    return rows.map((row) => ({
      fileId: row.file_id as string,
      name: row.name as string,
      contentType: row.content_type as string,
      size: Number(row.size),
      width: row.width as number | null,
      height: row.height as number | null,
      blobId: row.blob_id as string,
      createdAt: row.created_at as Date,
    }));
  }

  async users(ids: (string | null)[]): Promise<Map<string, User>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const users = await this.dataSource.manager.find(User, { where: { id: In(wanted) } });
    return new Map(users.map((user) => [user.id, user]));
  }
}

/** Columns of a tree row (`TreePage`). */
const TREE_COLUMNS = `page_id, parent_id, position, kind, title, emoji, icon, slug, description, layout, cover, hidden, no_index,
  no_robots_index, variables, document_id, link_target, computed, created_at, updated_at`;

/** Every column the merge compares (`pageChanged`: parent, position, body, and the SETTINGS of merge/three-way-merge.ts). */
const MERGED_COLUMNS = `page_id, parent_id, position, document_id, kind, title, emoji, icon, slug, description, layout, cover, hidden, no_index,
  no_robots_index, variables, link_target, computed`;

function treePage(row: Record<string, unknown>): TreePage {
  return {
    pageId: row.page_id,
    parentId: row.parent_id,
    position: row.position,
    kind: row.kind,
    title: row.title,
    emoji: row.emoji,
    icon: row.icon,
    slug: row.slug,
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
  } as TreePage;
}
