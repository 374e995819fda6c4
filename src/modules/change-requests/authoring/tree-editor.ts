import { newId } from '../../../common/ids';
import type { PageWithBody } from '../../content/content.read-model';
import { FILE_REF, PAGE_REF } from '../../content/markdown/markdown';
import { mapOutsideCode } from '../../content/markdown/markdown-refs';
import type { ComputedSource } from '../../content/revision-page.entity';
import { derivePaths, resolvePagePath, slugify } from '../../content/tree/slugs';
import { leadingHeading, replaceLinkDestinations } from './markdown-scan';
import { invalidChange, MAX_PAGE_TITLE, type InsertPageChange, type PageSettings, type UpdatePageChange } from './content-changes';

/**
 * A page being edited or merged: a revision's tree row without the revision it came from. `markdown`
 * is set when the body is new or was loaded; undefined leaves the body to `documentId`.
 */
export type TreePage = Omit<PageWithBody, 'revisionId' | 'path' | 'markdown'> & { markdown?: string | null };

export type PageOutcome =
  { object: 'created_page'; page: string; ref?: string } | { object: 'updated_page'; page: string } | { object: 'deleted_page'; page: string };

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** `title` and `description` of a YAML-style front matter block, and the body after it. */
export function readFrontmatter(markdown: string): { title?: string; description?: string; body: string } {
  const match = FRONTMATTER.exec(markdown);
  if (!match) return { body: markdown };
  const fields: Record<string, string> = {};
  for (const line of match[1].split(/\r?\n/)) {
    const pair = /^(\w+):(.*)$/s.exec(line);
    if (pair)
      fields[pair[1]] = pair[2]
        .trimStart()
        .replace(/^(["'])(.*)\1$/, '$2')
        .trim();
  }
  return { title: fields.title || undefined, description: fields.description || undefined, body: markdown.slice(match[0].length) };
}

/**
 * Applies a batch of changes, in order, to a copy of a revision's page tree; every refusal names the
 * change's index. At the end (`finish`), links of the bodies written by the batch are resolved
 * against the final tree (page ids, slug paths, `.md` paths, relative paths, and the batch's refs),
 * so a page may link to one inserted after it.
 */
export class TreeEditor {
  readonly pages: Map<string, TreePage>;
  readonly outcomes = new Map<string, PageOutcome>();
  private readonly written = new Set<string>();
  private readonly pageRefs = new Map<string, string>();
  private readonly fileRefs = new Map<string, string>();

  constructor(
    pages: TreePage[],
    private readonly fileIds: Set<string>,
    private readonly now = new Date(),
  ) {
    this.pages = new Map(pages.map((page) => [page.pageId, { ...page }]));
  }

  private children(parentId: string | null): TreePage[] {
    return [...this.pages.values()].filter((page) => page.parentId === parentId).sort((a, b) => a.position - b.position);
  }

  private require(index: number, pageId: string): TreePage {
    const page = this.pages.get(pageId);
    if (!page) throw invalidChange(index, `.page: page ${pageId} is not in the change request`);
    return page;
  }

  private requireParent(index: number, parentId: string | null): void {
    if (parentId === null) return;
    const parent = this.pages.get(parentId);
    if (!parent) throw invalidChange(index, `.into: page ${parentId} is not in the change request`);
    if (parent.kind === 'link') throw invalidChange(index, `.into: page ${parentId} is a link and cannot hold pages`);
  }

  /** Places `page` among the children of `parentId` at `at` (clamped to the end), numbering the siblings again. */
  private place(page: TreePage, parentId: string | null, at: number | undefined): void {
    const siblings = this.children(parentId).filter((sibling) => sibling.pageId !== page.pageId);
    const index = at === undefined ? siblings.length : Math.min(at, siblings.length);
    siblings.splice(index, 0, page);
    page.parentId = parentId;
    siblings.forEach((sibling, position) => {
      if (sibling.position !== position) {
        sibling.position = position;
        if (sibling !== page) this.touch(sibling, false);
      }
    });
    page.position = index;
  }

  private checkSlug(index: number, page: TreePage): void {
    if (page.slug === null) return;
    const clash = this.children(page.parentId).find((sibling) => sibling.pageId !== page.pageId && sibling.slug === page.slug);
    if (clash) throw invalidChange(index, `.slug: "${page.slug}" is already the slug of page ${clash.pageId} under the same parent`);
  }

  private touch(page: TreePage, content: boolean): void {
    page.updatedAt = this.now;
    if (content) this.written.add(page.pageId);
    if (!this.outcomes.has(page.pageId)) this.outcomes.set(page.pageId, { object: 'updated_page', page: page.pageId });
  }

  private applySettings(page: TreePage, settings: PageSettings): void {
    if (settings.title !== undefined) page.title = settings.title;
    if (settings.emoji !== undefined) page.emoji = settings.emoji === '' ? null : settings.emoji;
    if (settings.icon !== undefined) page.icon = settings.icon === '' ? null : settings.icon;
    if (settings.description !== undefined) page.description = settings.description === '' ? null : settings.description;
    if (settings.hidden !== undefined) page.hidden = settings.hidden;
    if (settings.noIndex !== undefined) page.noIndex = settings.noIndex;
    if (settings.noRobotsIndex !== undefined) page.noRobotsIndex = settings.noRobotsIndex;
  }

  insertPage(index: number, change: InsertPageChange): string {
    const into = change.into ?? null;
    this.requireParent(index, into);
    // Markdown's front matter and leading heading say the title (as Git Sync reads them); a JSON document's body is kept whole.
    const front = change.fromDocument ? { body: change.markdown } : readFrontmatter(change.markdown);
    let body = front.body;
    // The front matter's title, then a leading heading (which then leaves the body), then `title`.
    let title = front.title;
    if (!title && !change.fromDocument) {
      const heading = leadingHeading(body);
      if (heading) {
        title = heading.title;
        body = body.slice(heading.length).replace(/^\s*\n/, '');
      }
    }
    title ??= change.title ?? 'Untitled';
    checkDocumentTitle(index, title);
    const page: TreePage = {
      pageId: newId(),
      parentId: into,
      position: 0,
      kind: 'document',
      title,
      emoji: null,
      icon: null,
      slug: change.slug || slugify(title),
      description: null,
      layout: null,
      cover: null,
      hidden: false,
      noIndex: false,
      noRobotsIndex: false,
      variables: {},
      documentId: null,
      linkTarget: null,
      computed: (change.computed as ComputedSource | null | undefined) ?? null,
      createdAt: this.now,
      updatedAt: this.now,
      markdown: body,
    };
    this.applySettings(page, { ...change, title: undefined });
    if (front.description) page.description = front.description;
    this.checkSlug(index, page);
    this.pages.set(page.pageId, page);
    this.place(page, into, change.at);
    this.written.add(page.pageId);
    this.outcomes.set(page.pageId, { object: 'created_page', page: page.pageId, ...(change.ref ? { ref: change.ref } : {}) });
    if (change.ref) this.pageRefs.set(change.ref, page.pageId);
    return page.pageId;
  }

  updatePage(index: number, change: UpdatePageChange): void {
    const page = this.require(index, change.page);
    this.applySettings(page, change);
    if (change.markdown !== undefined) {
      const front = change.fromDocument ? { body: change.markdown } : readFrontmatter(change.markdown);
      page.markdown = front.body;
      if (front.title) page.title = checkDocumentTitle(index, front.title);
      if (front.description) page.description = front.description;
    }
    if (change.computed !== undefined) page.computed = change.computed as ComputedSource | null;
    if (change.slug !== undefined) page.slug = change.slug || slugify(page.title);
    if (change.into !== undefined || change.at !== undefined) {
      const into = change.into === undefined ? page.parentId : change.into;
      this.requireParent(index, into);
      for (let at = into; at !== null; at = this.pages.get(at)?.parentId ?? null) {
        if (at === page.pageId) throw invalidChange(index, `.into: page ${page.pageId} cannot move under itself or one of its descendants`);
      }
      const moving = into !== page.parentId;
      this.place(page, into, change.at ?? (moving ? undefined : page.position));
    }
    this.checkSlug(index, page);
    this.touch(page, change.markdown !== undefined);
  }

  deletePage(index: number, pageId: string): void {
    const page = this.require(index, pageId);
    const doomed = [page.pageId];
    for (let i = 0; i < doomed.length; i++) doomed.push(...this.children(doomed[i]).map((child) => child.pageId));
    for (const id of doomed) {
      this.pages.delete(id);
      this.written.delete(id);
      if (this.outcomes.get(id)?.object === 'created_page') this.outcomes.delete(id);
      else this.outcomes.set(id, { object: 'deleted_page', page: id });
    }
    const siblings = this.children(page.parentId);
    siblings.forEach((sibling, position) => {
      if (sibling.position !== position) {
        sibling.position = position;
        this.touch(sibling, false);
      }
    });
  }

  /** The page as it is in `target` (restored if deleted, reset if changed), or removed when `target` has no such page. */
  revertPage(index: number, pageId: string, target: Map<string, TreePage>): void {
    const then = target.get(pageId);
    if (!then) {
      if (this.pages.has(pageId)) this.deletePage(index, pageId);
      else throw invalidChange(index, `.page: page ${pageId} is in neither the change request nor the revision to revert to`);
      return;
    }
    if (then.parentId !== null && !this.pages.has(then.parentId)) {
      throw invalidChange(index, `.page: the parent ${then.parentId} of page ${pageId} is not in the change request; revert it first`);
    }
    const restored: TreePage = { ...then, updatedAt: this.now };
    const existed = this.pages.has(pageId);
    this.pages.set(pageId, restored);
    this.place(restored, then.parentId, then.position);
    this.checkSlug(index, restored);
    if (!existed) this.outcomes.set(pageId, { object: 'created_page', page: pageId });
    this.touch(restored, true);
  }

  addFile(ref: string | undefined, fileId: string): void {
    this.fileIds.add(fileId);
    if (ref) this.fileRefs.set(ref, fileId);
  }

  /** Resolves the links of every body written by the batch against the final tree. */
  finish(): void {
    const nodes = [...this.pages.values()].map((page) => ({ id: page.pageId, parentId: page.parentId, slug: page.slug }));
    const paths = derivePaths(nodes);
    const byPath = new Map<string, string>();
    for (const [id, path] of paths) if (path !== null) byPath.set(path, id);
    const roots = this.children(null);
    for (const id of this.written) {
      const page = this.pages.get(id);
      if (!page?.markdown) continue;
      page.markdown = rewriteLinks(page.markdown, (href) => this.resolve(href, paths.get(id) ?? '', byPath, roots[0]?.pageId));
    }
  }

  private resolve(href: string, fromPath: string, byPath: Map<string, string>, rootPage: string | undefined): string | undefined {
    const [target, anchor] = splitAnchor(href);
    if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target) || target === '') return undefined;
    if (FILE_REF.test(target)) return undefined;
    const stable = PAGE_REF.exec(href);
    if (stable && this.pages.has(stable[1])) return undefined;
    const bare = target.replace(/^\.\//, '').replace(/\.md$/i, '');
    const refPage = this.pageRefs.get(bare) ?? this.pageRefs.get(target.replace(/^\.\//, ''));
    if (refPage) return `/pages/${refPage}${anchor}`;
    const refFile = this.fileRefs.get(target.replace(/^\.\//, ''));
    if (refFile) return `/files/${refFile}`;
    if (target.startsWith('/pages/')) {
      const rest = target.slice('/pages/'.length);
      if (/^readme(?:\.md)?$/i.test(rest)) return rootPage ? `/pages/${rootPage}${anchor}` : undefined;
      const path = resolvePagePath('', rest);
      const id = path === null ? undefined : byPath.get(path);
      return id ? `/pages/${id}${anchor}` : undefined;
    }
    if (target.startsWith('/')) return undefined;
    const path = resolvePagePath(fromPath, target);
    const id = path === null ? undefined : byPath.get(path);
    return id ? `/pages/${id}${anchor}` : undefined;
  }
}

/** A title read from the document (front matter or leading heading) within the column's bound. */
function checkDocumentTitle(index: number, title: string): string {
  if (title.length > MAX_PAGE_TITLE && [...title].length > MAX_PAGE_TITLE) {
    throw invalidChange(index, `.document: the title it gives (front matter or leading heading) is longer than ${MAX_PAGE_TITLE} characters`);
  }
  return title;
}

function splitAnchor(href: string): [string, string] {
  const at = href.indexOf('#');
  return at === -1 ? [href, ''] : [href.slice(0, at), href.slice(at)];
}

/** Rewrites link and image destinations outside code; `resolve` answers the new destination or undefined to keep it. */
export function rewriteLinks(markdown: string, resolve: (href: string) => string | undefined): string {
  return mapOutsideCode(markdown, (text) => replaceLinkDestinations(text, resolve));
}
