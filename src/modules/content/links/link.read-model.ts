import type { Page } from '../../../common/pagination/paginate';
import type { SpacePermissionsJson } from '../../space-model/space-permissions';
import type { Organization } from '../../organizations/organization.entity';
import type { OrganizationPermissions } from '../../organizations/organization.policy';
import type { Space } from '../../space-model/space.entity';
import type { PageWithBody, RevisionContext } from '../content.read-model';
import type { RevisionFile } from '../revision-file.entity';
import type { RevisionLink } from '../revision-link.entity';
import type { RevisionPage } from '../revision-page.entity';

export interface LinkStats {
  total: number;
  broken: number;
}

/**
 * What the references of one request may need to expand: the revision's pages and files they name,
 * and the organization and space they live in, with the caller's permissions on each.
 */
export interface ReferenceSources extends RevisionContext {
  pages: Map<string, PageWithBody>;
  files: Map<string, RevisionFile>;
  organization: Organization;
  organizationPermissions: OrganizationPermissions;
  space: Space;
  spacePermissions: SpacePermissionsJson;
}

/** A page of a space's (or one page's) links, with the stats of the whole list. */
export interface LinksPage {
  sources: ReferenceSources;
  page: Page<RevisionLink>;
  stats: LinkStats;
  /** Set for one page's links: each link then shows only that page as its location. */
  pageId?: string;
}

/** A page of a file's backlinks: the ids of the pages that reference it. */
export interface BacklinksPage {
  sources: ReferenceSources;
  page: Page<RevisionPage>;
}
