import { Injectable } from '@nestjs/common';
import { SpaceAccess } from '../../access/space-access.service';
import { organizationPermissions } from '../../organizations/organization.policy';
import { Organization } from '../../organizations/organization.entity';
import { OrganizationsRepository } from '../../organizations/organizations.repository';
import { User } from '../../users/user.entity';
import { contentError } from '../content.errors';
import { ContentService, ReadableRevision } from '../content.service';
import { LinksQueryDto } from '../dto/links-query.dto';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { RevisionLink } from '../revision-link.entity';
import type { BacklinksPage, LinksPage, ReferenceSources } from './link.read-model';
import { LinksRepository } from './links.repository';

/** Links of a space's active revision (all, or one page's) and backlinks of its files. */
@Injectable()
export class LinksService {
  constructor(
    private readonly content: ContentService,
    private readonly links: LinksRepository,
    private readonly organizations: OrganizationsRepository,
  ) {}

  /** Links of the active revision, or of `revisionId` (a change request's head). */
  async list(user: User, access: SpaceAccess, query: LinksQueryDto, pageId?: string, revisionId?: string): Promise<LinksPage> {
    const readable = await this.content.open(access, revisionId);
    const readId = readable.revision.id;
    if (pageId && (await this.links.pagesById(readId, [pageId])).size === 0) throw contentError('content.page_not_found', `Page ${pageId} not found`);
    const [page, stats] = await Promise.all([this.links.list(readId, { status: query.status, pageId }, query), this.links.stats(readId, pageId)]);
    return { sources: await this.referenceSources(user, readable, page.items), page, stats, pageId };
  }

  async backlinks(user: User, access: SpaceAccess, fileId: string, query: ListQueryDto, revisionId?: string): Promise<BacklinksPage> {
    const { file, ...readable } = await this.content.findFile(access, revisionId, fileId);
    const page = await this.links.backlinks(readable.revision.id, `file:${file.fileId}`, query);
    const sources: ReferenceSources = {
      ...(await this.containers(user, readable)),
      pages: await this.links.withBodies(page.items),
      files: new Map([[file.fileId, file]]),
    };
    return { sources, page };
  }

  /** Pages of the revision that link to page `pageId` (by id or anchor in it). */
  async pageBacklinks(user: User, access: SpaceAccess, pageId: string, query: ListQueryDto, revisionId?: string): Promise<BacklinksPage> {
    const readable = await this.content.open(access, revisionId);
    const target = await this.links.pagesById(readable.revision.id, [pageId]);
    if (target.size === 0) throw contentError('content.page_not_found', `Page ${pageId} not found`);
    const page = await this.links.backlinks(readable.revision.id, `page:${pageId}`, query);
    const sources: ReferenceSources = {
      ...(await this.containers(user, readable)),
      pages: new Map([...target, ...(await this.links.withBodies(page.items))]),
      files: new Map(),
    };
    return { sources, page };
  }

  /** Loads, in two queries, the pages and files a page of links names. */
  private async referenceSources(user: User, readable: ReadableRevision, links: RevisionLink[]): Promise<ReferenceSources> {
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
   * The organization and space every reference of the request lives in, with the caller's permissions:
   * on the space those the access check resolved, on the organization the caller's role there (the
   * organization policy; a guest with a grant gets a guest's permissions).
   */
  private async containers(user: User, readable: ReadableRevision) {
    const { space, permissions, organizationRole } = readable.access;
    const [organization, ownedTeams] = await Promise.all([
      this.organizations.findById(space.organizationId),
      this.organizations.withOwnedTeam(user.id, [space.organizationId]),
    ]);
    return {
      ...readable.context,
      organization: organization as Organization,
      organizationPermissions: organizationPermissions({ membership: { role: organizationRole }, ownsTeam: ownedTeams.size > 0 }),
      space,
      spacePermissions: permissions,
    };
  }
}
