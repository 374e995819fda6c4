import { OrganizationJson, presentOrganization } from '../../organizations/organization.presenter';
import { presentSpace, SpaceJson } from '../../space-model/space.presenter';
import { PagePresenter, presentFile, RevisionFileJson, RevisionPageJson } from '../content.presenter';
import type { PageWithBody, RevisionContext } from '../content.read-model';
import { RevisionFile } from '../revision-file.entity';
import { LinkStatus, LinkTarget, RevisionLink } from '../revision-link.entity';
import type { BacklinksPage, LinksPage, ReferenceSources } from './link.read-model';

/** `ContentLocation` of the public description: a URL, or a page or file with the organization and space it lives in. */
export type ContentLocationJson =
  | { kind: 'url'; url: string }
  | { kind: 'file'; organization: OrganizationJson; space: SpaceJson; file: RevisionFileJson }
  | { kind: 'page'; organization: OrganizationJson; space: SpaceJson; page: RevisionPageJson; internalLocation?: { type: 'anchor'; anchor: string } };

/** A link of the links lists (section 2.19). */
export interface LinkJson {
  status: LinkStatus;
  relation: 'reference';
  targetReference: ContentLocationJson;
  locationReferences: ContentLocationJson[];
}

/** `listSpaceLinks` / `listPageLinks`: a page of links, with the stats of the whole list. */
export interface LinksJson {
  items: LinkJson[];
  count: number;
  next?: { page: string };
  stats: { total: number; broken: { total: number; changeRequest: number } };
}

/** `listFileBacklinks`: the pages that reference a file, as page locations. */
export interface BacklinksJson {
  items: ContentLocationJson[];
  count: number;
  next?: { page: string };
}

/**
 * What a reference may need to expand: the revision's pages and files it names, and the organization
 * and space the references live in, presented once per request for the caller.
 */
export interface ReferenceContext extends RevisionContext {
  pages: Map<string, PageWithBody>;
  files: Map<string, RevisionFile>;
  organization: OrganizationJson;
  space: SpaceJson;
}

/**
 * A page as a reference shows it: the public `RevisionPage` of the page itself, with its markdown
 * (the public schema requires a document page's body) and its page refs kept stable (`/pages/ID`), but
 * without sub-pages (`pages: []`): the reference names one page; the content routes give the tree.
 */
function referencedPage(context: ReferenceContext, page: PageWithBody): RevisionPageJson {
  return new PagePresenter(context, [page]).page(page, { format: 'markdown', refs: 'stable' });
}

/**
 * A content reference of section 2.19, in the public `ContentLocation` shapes: `organization` and
 * `space` are the Organization and Space objects, `page` and `file` the revision's page and file, an
 * anchor is a page location with `internalLocation`. A page or file that does not exist (why the link is
 * broken) cannot be shown as one: the reference is then the `url` the page wrote (`/pages/ID`, `/files/ID`).
 * There is no `versionContext`: the public schema wants a whole Revision there, and these lists are
 * always of the space's active revision, which the Space object names (`revision`).
 */
export function presentReference(context: ReferenceContext, target: LinkTarget): ContentLocationJson {
  if (target.kind === 'url') return { kind: 'url', url: target.url };
  if (target.kind === 'file') {
    const file = context.files.get(target.file);
    if (!file) return { kind: 'url', url: `/files/${target.file}` };
    return { kind: 'file', organization: context.organization, space: context.space, file: presentFile(context, file) };
  }
  const page = context.pages.get(target.page);
  if (!page) return { kind: 'url', url: `/pages/${target.page}` };
  const json: ContentLocationJson = { kind: 'page', organization: context.organization, space: context.space, page: referencedPage(context, page) };
  if (target.kind === 'anchor') json.internalLocation = { type: 'anchor', anchor: target.anchor };
  return json;
}

/** A link of the links lists: its status, its target, and the pages it appears on (only `onPage` for a page's own list). */
export function presentLink(context: ReferenceContext, link: RevisionLink, onPage?: string): LinkJson {
  const locations = onPage ? [onPage] : link.pages;
  return {
    status: link.status,
    relation: 'reference',
    targetReference: presentReference(context, link.target),
    locationReferences: locations.map((page) => presentReference(context, { kind: 'page', page })),
  };
}

/**
 * The organization and space every reference of the request lives in, presented once for the caller:
 * the space with the permissions the access check resolved, the organization with the caller's role there.
 */
export function referenceContext({ organization, organizationPermissions, space, spacePermissions, ...rest }: ReferenceSources): ReferenceContext {
  return {
    ...rest,
    organization: presentOrganization(organization, organizationPermissions, rest.config),
    space: presentSpace(space, spacePermissions, rest.config),
  };
}

export function presentLinks({ sources, page, stats, pageId }: LinksPage): LinksJson {
  const context = referenceContext(sources);
  return {
    ...page,
    items: page.items.map((link) => presentLink(context, link, pageId)),
    // Broken links inside change requests: Quire has no change requests yet, so none.
    stats: { total: stats.total, broken: { total: stats.broken, changeRequest: 0 } },
  };
}

export function presentBacklinks({ sources, page }: BacklinksPage): BacklinksJson {
  const context = referenceContext(sources);
  return { ...page, items: page.items.map((item) => presentReference(context, { kind: 'page', page: item.pageId })) };
}
