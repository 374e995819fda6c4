import { OrganizationJson } from '../../organizations/organization.presenter';
import { SpaceJson } from '../../spaces/space.presenter';
import { PagePresenter, presentFile, RevisionContext } from '../content.presenter';
import type { PageWithBody } from '../content.read-model';
import { RevisionFile } from '../revision-file.entity';
import { LinkTarget, RevisionLink } from '../revision-link.entity';

type Json = Record<string, unknown>;

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
function referencedPage(context: ReferenceContext, page: PageWithBody): Json {
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
export function presentReference(context: ReferenceContext, target: LinkTarget): Json {
  if (target.kind === 'url') return { kind: 'url', url: target.url };
  if (target.kind === 'file') {
    const file = context.files.get(target.file);
    if (!file) return { kind: 'url', url: `/files/${target.file}` };
    return { kind: 'file', organization: context.organization, space: context.space, file: presentFile(context, file) };
  }
  const page = context.pages.get(target.page);
  if (!page) return { kind: 'url', url: `/pages/${target.page}` };
  const json: Json = { kind: 'page', organization: context.organization, space: context.space, page: referencedPage(context, page) };
  if (target.kind === 'anchor') json.internalLocation = { type: 'anchor', anchor: target.anchor };
  return json;
}

/** A link of the links lists: its status, its target, and the pages it appears on (only `onPage` for a page's own list). */
export function presentLink(context: ReferenceContext, link: RevisionLink, onPage?: string): Json {
  const locations = onPage ? [onPage] : link.pages;
  return {
    status: link.status,
    relation: 'reference',
    targetReference: presentReference(context, link.target),
    locationReferences: locations.map((page) => presentReference(context, { kind: 'page', page })),
  };
}
