import { pageAppUrl, presentFile, RevisionContext } from '../content.presenter';
import { RevisionFile } from '../revision-file.entity';
import { LinkTarget, RevisionLink } from '../revision-link.entity';
import { RevisionPage } from '../revision-page.entity';

type Json = Record<string, unknown>;

/** What a reference may need to expand: the revision's pages and files it names, and the organization. */
export interface ReferenceContext extends RevisionContext {
  pages: Map<string, RevisionPage>;
  files: Map<string, RevisionFile>;
}

/**
 * A content reference of section 2.19: `kind`, where it lives (`organization`, `space`,
 * `versionContext`) and the thing it names, expanded when it exists (`page`, `file`), or only its
 * id when it does not (which is why the link is broken). Organization and space are given by id:
 * every reference of a list shares the same two, and the caller has both already.
 */
export function presentReference(context: ReferenceContext, target: LinkTarget): Json {
  if (target.kind === 'url') return { kind: 'url', url: target.url };
  const json: Json = {
    kind: target.kind,
    organization: context.organizationId,
    space: context.spaceId,
    versionContext: { type: 'revision', revision: context.revisionId },
  };
  if (target.kind === 'file') {
    const file = context.files.get(target.file);
    json.file = file ? presentFile(context, file) : { id: target.file };
    return json;
  }
  const page = context.pages.get(target.page);
  json.page = page ? { id: page.pageId, title: page.title, path: page.path, urls: { app: pageAppUrl(context, page.path) } } : { id: target.page };
  if (target.kind === 'anchor') json.anchor = target.anchor;
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
