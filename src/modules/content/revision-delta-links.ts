import { EntityManager } from 'typeorm';
import { collectLinks, LinkContext } from './links/link-classifier';
import { FILE_REF, markdownLinks, PAGE_REF } from './markdown/markdown';
import type { RevisionDelta } from './revision-delta';
import type { LinkStatus, LinkTarget } from './revision-link.entity';
import type { DraftPage } from './revision-writer';
import { resolvePagePath } from './tree/slugs';

const CHUNK = 5000;

interface LinkRow {
  target_key: string;
  status: LinkStatus;
  target: LinkTarget;
  pages: string[];
}

/** A delta as far as its links go; the new revision's pages and files are written already. */
export interface LinkChange {
  revisionId: string;
  /** The revision the delta is described against. */
  baseId: string;
  /** The new revision's full base when it is a layer (its rows are hidden by tombstones), null when it is written full. */
  full: string | null;
  delta: RevisionDelta;
  /** Pages not in the base. */
  inserted: DraftPage[];
  /** New paths of the changed pages and of the pages below a moved one. */
  paths: Map<string, string | null>;
  /** Pages whose body differs from the base's. */
  newBodies: string[];
  /** Pages whose path is new (inserted, moved, or below a moved page). */
  newPaths: string[];
}

/**
 * The link rows that change: those of pages whose body or path changed, or that are gone (their
 * old contributions removed: found by the GIN index on `pages`), those whose target appeared or
 * went (status), and the links of the pages classified again, against only the pages, paths and
 * files their bodies name. Written into the new revision over whatever it carries for those keys
 * (tombstones where a layer's row disappears).
 */
export async function writeDeltaLinks(change: LinkChange, em: EntityManager): Promise<void> {
  const { revisionId, baseId, full, delta, inserted, paths, newBodies, newPaths } = change;
  const removed = new Set(delta.removed);
  // Pages linking to a page that now has a path (a broken path link may resolve) or whose path changed (a relative one may break).
  const pathKeys = newPaths
    .map((id) => paths.get(id))
    .filter((path): path is string => !!path)
    .map((path) => `path:${path}`);
  // Pages linking to a page that moved or is gone: a relative link to it no longer resolves (as a full write would classify it).
  const insertedIds = new Set(inserted.map((page) => page.pageId));
  const movedKeys = [...newPaths.filter((id) => !insertedIds.has(id)), ...delta.removed].map((id) => `page:${id}`);
  const hitKeys = [...pathKeys, ...movedKeys];
  const hits: { pages: string[] }[] = hitKeys.length
    ? await em.query(`SELECT pages FROM revision_links WHERE revision_id = $1 AND target_key = ANY($2::text[])`, [baseId, hitKeys])
    : [];
  const relink = new Set([...newBodies, ...newPaths, ...hits.flatMap((row) => row.pages)].filter((id) => !removed.has(id)));
  const drop = [...relink, ...removed];
  const touched = new Set([
    ...inserted.map((page) => `page:${page.pageId}`),
    ...delta.removed.map((id) => `page:${id}`),
    ...delta.files.map((file) => `file:${file.fileId}`),
  ]);
  const affected: LinkRow[] =
    drop.length + touched.size > 0
      ? await em.query(
          `SELECT target_key, status, target, pages FROM revision_links
            WHERE revision_id = $1 AND (pages && $2::text[] OR target_key = ANY($3::text[]))`,
          [baseId, drop, [...touched]],
        )
      : [];
  const dropped = new Set(drop);
  const result = new Map<string, LinkRow>();
  const existed = new Set<string>();
  for (const row of affected) {
    existed.add(row.target_key);
    let status = row.status;
    if (touched.has(row.target_key)) {
      // Touched keys name pages inserted or removed, or files added.
      if (row.target.kind === 'page') status = removed.has(row.target.page) ? 'broken' : 'in-app';
      else if (row.target.kind === 'file') status = 'in-app';
    }
    result.set(row.target_key, { ...row, status, pages: row.pages.filter((id) => !dropped.has(id)) });
  }

  if (relink.size > 0) {
    const known = new Map<string, { path: string | null; markdown: string }>();
    for (const page of delta.pages) if (page.markdown !== undefined) known.set(page.pageId, { path: paths.get(page.pageId) ?? null, markdown: page.markdown });
    const missing = [...relink].filter((id) => !known.has(id));
    if (missing.length > 0) {
      const rows: { page_id: string; path: string | null; markdown: string | null }[] = await em.query(
        `SELECT p.page_id, p.path, d.markdown FROM revision_pages p LEFT JOIN documents d ON d.id = p.document_id WHERE p.revision_id = $1 AND p.page_id = ANY($2::text[])`,
        [revisionId, missing],
      );
      for (const row of rows) known.set(row.page_id, { path: row.path, markdown: row.markdown ?? '' });
    }
    const pages = [...relink]
      .filter((id) => known.has(id))
      .map((id) => ({ pageId: id, path: known.get(id)?.path ?? '', markdown: known.get(id)?.markdown ?? '' }));
    const linked = collectLinks(pages, await linkContext(revisionId, pages, em));
    const fresh = linked.filter((link) => !result.has(link.key)).map((link) => link.key);
    if (fresh.length > 0) {
      const others: LinkRow[] = await em.query(
        `SELECT target_key, status, target, pages FROM revision_links WHERE revision_id = $1 AND target_key = ANY($2::text[])`,
        [baseId, fresh],
      );
      for (const row of others) {
        existed.add(row.target_key);
        result.set(row.target_key, row);
      }
    }
    for (const link of linked) {
      const row = result.get(link.key);
      if (row) result.set(link.key, { ...row, status: link.status, pages: [...row.pages, ...link.pages.filter((id) => !row.pages.includes(id))] });
      else result.set(link.key, { target_key: link.key, status: link.status, target: link.target, pages: link.pages });
    }
  }

  const keys = [...result.keys()];
  if (keys.length === 0) return;
  await em.query(`DELETE FROM revision_link_rows WHERE revision_id = $1 AND target_key = ANY($2::text[])`, [revisionId, keys]);
  const live = [...result.values()].filter((row) => row.pages.length > 0);
  // A link gone from a layer hides the full base's row with a tombstone (which repeats it).
  const gone = full ? [...result.values()].filter((row) => row.pages.length === 0 && existed.has(row.target_key)).map((row) => row.target_key) : [];
  for (let i = 0; i < live.length; i += CHUNK) {
    await em.query(
      `INSERT INTO revision_link_rows (revision_id, target_key, status, target, pages)
       SELECT $1, l.target_key, l.status, l.target, l.pages FROM jsonb_to_recordset($2::jsonb) AS l (target_key text, status text, target jsonb, pages text[])`,
      [revisionId, JSON.stringify(live.slice(i, i + CHUNK))],
    );
  }
  if (gone.length > 0) {
    await em.query(
      `INSERT INTO revision_link_rows (revision_id, target_key, status, target, pages, deleted)
       SELECT $1, target_key, status, target, pages, true FROM revision_link_rows WHERE revision_id = $2 AND target_key = ANY($3::text[]) AND NOT deleted`,
      [revisionId, full, gone],
    );
  }
}

/** What the bodies of `pages` can point at in the new revision: only the page ids, paths and file ids they name. */
async function linkContext(revisionId: string, pages: { pageId: string; path: string; markdown: string }[], em: EntityManager): Promise<LinkContext> {
  const pageIds = new Set<string>();
  const pagePaths = new Set<string>();
  const fileIds = new Set<string>();
  for (const page of pages) {
    for (const link of markdownLinks(page.markdown)) {
      const raw = link.href.trim();
      const pageRef = PAGE_REF.exec(raw);
      if (pageRef) pageIds.add(pageRef[1]);
      const fileRef = FILE_REF.exec(raw);
      if (fileRef) fileIds.add(fileRef[1]);
      const path = resolvePagePath(page.path, raw);
      if (path !== null) pagePaths.add(path);
    }
  }
  const byId: { page_id: string }[] = pageIds.size
    ? await em.query(`SELECT page_id FROM revision_pages WHERE revision_id = $1 AND page_id = ANY($2::text[])`, [revisionId, [...pageIds]])
    : [];
  const byPath: { page_id: string; path: string }[] = pagePaths.size
    ? await em.query(`SELECT page_id, path FROM revision_pages WHERE revision_id = $1 AND path = ANY($2::text[])`, [revisionId, [...pagePaths]])
    : [];
  const files: { file_id: string }[] = fileIds.size
    ? await em.query(`SELECT file_id FROM revision_files WHERE revision_id = $1 AND file_id = ANY($2::text[])`, [revisionId, [...fileIds]])
    : [];
  return {
    pageIds: new Set(byId.map((row) => row.page_id)),
    pagePaths: new Map(byPath.map((row) => [row.path, row.page_id])),
    fileIds: new Set(files.map((row) => row.file_id)),
  };
}
