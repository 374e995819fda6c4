import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { paginate, type Page } from '../../../common/pagination/paginate';
import type { RedirectOrder } from './dto/site-redirect.dto';
import { SiteRedirect } from './site-redirect.entity';

/** A site space as a redirect sees it: where it is served, and the revision its space shows. */
export interface SiteSpacePlace {
  id: string;
  spaceId: string;
  path: string;
  isDefault: boolean;
  sectionId: string | null;
  sectionPath: string | null;
  sectionDefault: boolean;
  revisionId: string;
}

const ORDERS: Record<RedirectOrder, { columns: string[]; direction: 'ASC' | 'DESC'; keyOf: (row: SiteRedirect) => (string | Date)[] }> = {
  createdAt: { columns: ['r.created_at', 'r.id'], direction: 'DESC', keyOf: (row) => [row.createdAt, row.id] },
  updatedAt: {
    columns: ['coalesce(r.updated_at, r.created_at)', 'r.id'],
    direction: 'DESC',
    keyOf: (row) => [row.updatedAt ?? row.createdAt, row.id],
  },
  source: { columns: ['r.source', 'r.id'], direction: 'ASC', keyOf: (row) => [row.source, row.id] },
};

/** Every query of site redirects and of the old paths of moved pages. */
@Injectable()
export class SiteRedirectsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  list(siteId: string, query: { page?: string; limit: number; search?: string; draft?: boolean; orderBy?: RedirectOrder }): Promise<Page<SiteRedirect>> {
    const order = ORDERS[query.orderBy ?? 'createdAt'];
    const qb = this.dataSource
      .getRepository(SiteRedirect)
      .createQueryBuilder('r')
      .where('r.site_id = :siteId AND r.draft = :draft', { siteId, draft: query.draft ?? false });
    if (query.search) qb.andWhere(`strpos(lower(r.source), lower(:search)) > 0`, { search: query.search });
    return paginate(qb, query, { list: `site-redirects:${query.orderBy ?? 'createdAt'}`, ...order });
  }

  find(siteId: string, id: string, em: EntityManager = this.dataSource.manager): Promise<SiteRedirect | null> {
    return em.findOneBy(SiteRedirect, { siteId, id });
  }

  /** Stores a new redirect (`fields` with its source's parts, `sourceParts`); the row as stored. */
  insert(siteId: string, id: string, fields: Omit<SiteRedirect, 'id' | 'siteId' | 'createdAt' | 'updatedAt'>, em: EntityManager): Promise<SiteRedirect> {
    return em.save(SiteRedirect, em.create(SiteRedirect, { id, siteId, ...fields, updatedAt: null }));
  }

  save(redirect: SiteRedirect, em: EntityManager): Promise<SiteRedirect> {
    return em.save(SiteRedirect, redirect);
  }

  /** Changes columns of a redirect, its `updatedAt` with them. */
  async update(id: string, changes: Partial<Pick<SiteRedirect, 'destination' | 'captureWildcard' | 'permanent' | 'draft'>>, em: EntityManager): Promise<void> {
    await em.update(SiteRedirect, { id }, { ...changes, updatedAt: new Date() });
  }

  /** False when the site has no such redirect. */
  async delete(siteId: string, id: string, em: EntityManager): Promise<boolean> {
    const result = await em.delete(SiteRedirect, { siteId, id });
    return (result.affected ?? 0) > 0;
  }

  /** The draft redirect `draftId` becomes the live one from its source, replacing the live one there. */
  async publishDraft(siteId: string, source: string, draftId: string, em: EntityManager): Promise<void> {
    await em.delete(SiteRedirect, { siteId, source, draft: false });
    await this.update(draftId, { draft: false }, em);
  }

  bySource(siteId: string, source: string, draft: boolean, em: EntityManager = this.dataSource.manager): Promise<SiteRedirect | null> {
    return em.findOneBy(SiteRedirect, { siteId, source, draft });
  }

  /**
   * The live redirect for `pathname`: an exact source first, then the wildcard whose prefix is the
   * longest prefix of the path. Each prefix of the path is probed in the index, so the cost follows
   * the path's length, not the number of redirects.
   */
  async match(siteId: string, pathname: string): Promise<SiteRedirect | null> {
    const prefixes: string[] = [];
    for (let i = 1; i <= pathname.length; i++) prefixes.push(pathname.slice(0, i));
    const rows = await this.dataSource
      .getRepository(SiteRedirect)
      .createQueryBuilder('r')
      .where('r.site_id = :siteId AND NOT r.draft', { siteId })
      .andWhere('((NOT r.wildcard AND r.source = :pathname) OR (r.wildcard AND r.prefix = ANY(:prefixes)))', { pathname, prefixes })
      .orderBy('r.wildcard', 'ASC')
      .addOrderBy('length(r.prefix)', 'DESC')
      .limit(1)
      .getMany();
    return rows[0] ?? null;
  }

  /** The site spaces of a site whose space is not deleted, with their section and the space's active revision. */
  places(siteId: string, em: EntityManager = this.dataSource.manager): Promise<SiteSpacePlace[]> {
    return em.query(
      `SELECT ss.id, ss.space_id AS "spaceId", ss.path, ss.is_default AS "isDefault", ss.section_id AS "sectionId",
              sec.path AS "sectionPath", coalesce(sec.is_default, false) AS "sectionDefault", sp.revision_id AS "revisionId"
       FROM site_spaces ss
       JOIN spaces sp ON sp.id = ss.space_id AND sp.deleted_at IS NULL
       LEFT JOIN site_sections sec ON sec.id = ss.section_id
       WHERE ss.site_id = $1`,
      [siteId],
    );
  }

  async sectionPath(siteId: string, sectionId: string, em: EntityManager = this.dataSource.manager): Promise<string | null> {
    const rows: { path: string }[] = await em.query(`SELECT path FROM site_sections WHERE site_id = $1 AND id = $2`, [siteId, sectionId]);
    return rows[0]?.path ?? null;
  }

  /**
   * The conditions a visitor must meet to be shown a site section (its own, and each of its site
   * spaces': it is shown when its own holds and one of theirs does), or a site space (its own and its
   * section's, both must hold). Null: no such item on the site.
   */
  async conditionsOf(
    siteId: string,
    item: { siteSectionId: string } | { siteSpaceId: string },
  ): Promise<{ all: (string | null)[]; any: (string | null)[] } | null> {
    if ('siteSectionId' in item) {
      const rows: { section: string | null; space: string | null }[] = await this.dataSource.query(
        `SELECT c.condition AS section, ss.condition AS space
           FROM site_sections c LEFT JOIN site_spaces ss ON ss.section_id = c.id AND ss.site_id = c.site_id
          WHERE c.site_id = $1 AND c.id = $2`,
        [siteId, item.siteSectionId],
      );
      return rows.length === 0 ? null : { all: [rows[0].section], any: rows.map((row) => row.space) };
    }
    const rows: { section: string | null; space: string | null }[] = await this.dataSource.query(
      `SELECT c.condition AS section, ss.condition AS space
         FROM site_spaces ss LEFT JOIN site_sections c ON c.id = ss.section_id
        WHERE ss.site_id = $1 AND ss.id = $2`,
      [siteId, item.siteSpaceId],
    );
    return rows.length === 0 ? null : { all: [rows[0].section, rows[0].space], any: [null] };
  }

  /** The path of a page in a revision (null: no such page). */
  async pagePath(revisionId: string, pageId: string, em: EntityManager = this.dataSource.manager): Promise<string | null> {
    const rows: { path: string | null }[] = await em.query(`SELECT path FROM revision_pages WHERE revision_id = $1 AND page_id = $2`, [revisionId, pageId]);
    return rows.length === 0 ? null : (rows[0].path ?? '');
  }

  /** The page at `path` in a revision (null: none). */
  async pageAt(revisionId: string, path: string, em: EntityManager = this.dataSource.manager): Promise<string | null> {
    const rows: { pageId: string }[] = await em.query(`SELECT page_id AS "pageId" FROM revision_pages WHERE revision_id = $1 AND path = $2`, [
      revisionId,
      path,
    ]);
    return rows[0]?.pageId ?? null;
  }

  /** Of the (space, old path) pairs, the moved pages still in their space's active revision, with their path now. */
  movedPages(candidates: { spaceId: string; oldPath: string }[]): Promise<{ spaceId: string; oldPath: string; path: string }[]> {
    if (candidates.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      `SELECT m.space_id AS "spaceId", m.old_path AS "oldPath", p.path
       FROM unnest($1::text[], $2::text[]) AS c(space_id, old_path)
       JOIN space_moved_pages m ON m.space_id = c.space_id AND m.old_path = c.old_path
       JOIN spaces sp ON sp.id = m.space_id
       CROSS JOIN LATERAL (SELECT path FROM revision_pages WHERE revision_id = sp.revision_id AND page_id = m.page_id) p
       WHERE p.path IS NOT NULL AND p.path <> m.old_path`,
      [candidates.map((c) => c.spaceId), candidates.map((c) => c.oldPath)],
    );
  }

  /** Whether a site that shows the space is published (old paths are kept only for those). */
  async shownByPublishedSite(spaceId: string, em: EntityManager): Promise<boolean> {
    const rows: unknown[] = await em.query(`SELECT 1 FROM site_spaces ss JOIN sites s ON s.id = ss.site_id WHERE ss.space_id = $1 AND s.published LIMIT 1`, [
      spaceId,
    ]);
    return rows.length > 0;
  }

  /**
   * Keeps the old path of every page of `previous` whose path `next` changed (a page that went is not a
   * move). When `next` is a layer over `previous`, or both are layers over one base (a merge), only the
   * pages stored in their own rows can differ (a layer stores what differs from its base, paths
   * included), so those few are probed by key; otherwise the two trees are compared whole.
   */
  async recordMoves(spaceId: string, previous: string, next: string, em: EntityManager): Promise<void> {
    const bases = new Map<string, string | null>(
      ((await em.query(`SELECT id, base_id FROM revisions WHERE id = ANY($1)`, [[previous, next]])) as { id: string; base_id: string | null }[]).map((row) => [
        row.id,
        row.base_id,
      ]),
    );
    const nextBase = bases.get(next) ?? null;
    const previousBase = bases.get(previous) ?? null;
    const upsert = `ON CONFLICT (space_id, old_path) DO UPDATE SET page_id = EXCLUDED.page_id, moved_at = now()`;
    if (nextBase !== null && (previous === nextBase || previousBase === nextBase)) {
      const own = previous === nextBase ? [next] : [previous, next];
      await em.query(
        `INSERT INTO space_moved_pages (space_id, old_path, page_id)
         SELECT $1, o.path, c.page_id
         FROM (SELECT DISTINCT page_id FROM revision_page_rows WHERE revision_id = ANY($4::text[])) c
         CROSS JOIN LATERAL (SELECT path FROM revision_pages WHERE revision_id = $2 AND page_id = c.page_id OFFSET 0) o
         CROSS JOIN LATERAL (SELECT path FROM revision_pages WHERE revision_id = $3 AND page_id = c.page_id OFFSET 0) n
         WHERE o.path IS NOT NULL AND o.path <> '' AND n.path IS DISTINCT FROM o.path
         ${upsert}`,
        [spaceId, previous, next, own],
      );
      return;
    }
    await em.query(
      `INSERT INTO space_moved_pages (space_id, old_path, page_id)
       SELECT $1, o.path, o.page_id
       FROM revision_pages o
       JOIN revision_pages n ON n.revision_id = $3 AND n.page_id = o.page_id
       WHERE o.revision_id = $2 AND o.path IS NOT NULL AND o.path <> '' AND n.path IS DISTINCT FROM o.path
       ${upsert}`,
      [spaceId, previous, next],
    );
  }
}
