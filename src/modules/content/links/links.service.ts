import { Injectable, NotFoundException } from '@nestjs/common';
import { SpaceAccess } from '../../access/space-access.service';
import { organizationPermissions } from '../../organizations/organization.policy';
import { presentOrganization } from '../../organizations/organization.presenter';
import { Organization } from '../../organizations/organization.entity';
import { OrganizationsRepository } from '../../organizations/organizations.repository';
import { presentSpace } from '../../spaces/space.presenter';
import { User } from '../../users/user.entity';
import { ContentService, ReadableRevision } from '../content.service';
import { LinksQueryDto } from '../dto/links-query.dto';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { RevisionLink } from '../revision-link.entity';
import { presentLink, presentReference, ReferenceContext } from './link.presenter';
import { LinksRepository } from './links.repository';

/** Links of a space's active revision (all, or one page's) and backlinks of its files. */
@Injectable()
export class LinksService {
  constructor(
    private readonly content: ContentService,
    private readonly links: LinksRepository,
    private readonly organizations: OrganizationsRepository,
  ) {}

  async list(user: User, access: SpaceAccess, query: LinksQueryDto, pageId?: string) {
    const readable = await this.content.open(access);
    const revisionId = readable.revision.id;
    if (pageId && (await this.links.pagesById(revisionId, [pageId])).size === 0) throw new NotFoundException(`Page ${pageId} not found`);
    const [page, stats] = await Promise.all([this.links.list(revisionId, { status: query.status, pageId }, query), this.links.stats(revisionId, pageId)]);
    const context = await this.referenceContext(user, readable, page.items);
    return {
      ...page,
      items: page.items.map((link) => presentLink(context, link, pageId)),
      // Broken links inside change requests: Quire has no change requests yet, so none.
      stats: { total: stats.total, broken: { total: stats.broken, changeRequest: 0 } },
    };
  }

  async backlinks(user: User, access: SpaceAccess, fileId: string, query: ListQueryDto) {
    const { file, ...readable } = await this.content.findFile(access, undefined, fileId);
    const page = await this.links.backlinks(readable.revision.id, `file:${file.fileId}`, query);
    const context: ReferenceContext = {
      ...(await this.containers(user, readable)),
      pages: await this.links.withBodies(page.items),
      files: new Map([[file.fileId, file]]),
    };
    return { ...page, items: page.items.map((item) => presentReference(context, { kind: 'page', page: item.pageId })) };
  }

  /** Loads, in two queries, the pages and files a page of links names. */
  private async referenceContext(user: User, readable: ReadableRevision, links: RevisionLink[]): Promise<ReferenceContext> {
    const revisionId = readable.revision.id;
    const pageIds = links.flatMap((link) => [...link.pages, ...(link.target.kind === 'page' || link.target.kind === 'anchor' ? [link.target.page] : [])]);
    const fileIds = links.flatMap((link) => (link.target.kind === 'file' ? [link.target.file] : []));
    const [pages, files, containers] = await Promise.all([
      this.links.pagesById(revisionId, pageIds),
      this.links.filesById(revisionId, fileIds),
      this.containers(user, readable),
    ]);
    return { ...containers, pages, files };
  }

  /**
   * The organization and space every reference of the request lives in, presented once for the
   * caller: the space with the permissions the access check resolved, the organization with the
   * caller's role there (the organization policy; a guest with a grant gets a guest's permissions).
   */
  private async containers(user: User, readable: ReadableRevision) {
    const { space, permissions, organizationRole } = readable.access;
    const [organization, ownedTeams] = await Promise.all([
      this.organizations.findById(space.organizationId),
      this.organizations.withOwnedTeam(user.id, [space.organizationId]),
    ]);
    const organizationPermissionsJson = organizationPermissions({ membership: { role: organizationRole }, ownsTeam: ownedTeams.size > 0 });
    return {
      ...readable.context,
      organization: presentOrganization(organization as Organization, organizationPermissionsJson, readable.context.config),
      space: presentSpace(space, permissions, readable.context.config),
    };
  }
}
