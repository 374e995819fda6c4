import { Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { SpaceAccess, SpaceAccessService } from '../access/space-access.service';
import { User } from '../users/user.entity';
import { CONTENT_POLICY } from './content.policy';
import { PagePresenter, presentFile, presentRevision, RevisionContext } from './content.presenter';
import { ContentRepository } from './content.repository';
import { PageQueryDto, RevisionFilesQueryDto, RevisionQueryDto } from './dto/content-query.dto';
import { RevisionFile } from './revision-file.entity';
import { Revision } from './revision.entity';

export interface ReadableRevision {
  access: SpaceAccess;
  revision: Revision;
  context: RevisionContext;
}

/** Reads of a space's content, from its active revision or from any revision of the space by id. */
@Injectable()
export class ContentService {
  constructor(
    private readonly access: SpaceAccessService,
    private readonly content: ContentRepository,
    private readonly config: AppConfig,
  ) {}

  /** The revision to read (the active one when `revisionId` is undefined); 404 when it is not the space's. */
  async open(user: User, spaceId: string, revisionId?: string): Promise<ReadableRevision> {
    const access = await this.access.require(user, spaceId, CONTENT_POLICY.read);
    const id = revisionId ?? access.space.revisionId;
    const revision = await this.content.findRevision(spaceId, id);
    if (!revision) throw new NotFoundException(`Revision ${id} not found in space ${spaceId}`);
    return {
      access,
      revision,
      context: {
        config: this.config,
        organizationId: access.space.organizationId,
        spaceId,
        revisionId: revision.id,
        active: revision.id === access.space.revisionId,
      },
    };
  }

  async revision(user: User, spaceId: string, revisionId: string | undefined, query: RevisionQueryDto) {
    const { revision, context } = await this.open(user, spaceId, revisionId);
    const [pages, files, reusableContents] = await Promise.all([
      this.content.pages(revision.id),
      this.content.files(revision.id),
      this.content.reusableContents(revision.id),
    ]);
    return presentRevision(context, revision, { pages, files, reusableContents }, { metadata: query.metadata });
  }

  async pages(user: User, spaceId: string, revisionId: string | undefined) {
    const { revision, context } = await this.open(user, spaceId, revisionId);
    return { pages: new PagePresenter(context, await this.content.pages(revision.id)).roots() };
  }

  async page(user: User, spaceId: string, revisionId: string | undefined, where: { pageId: string } | { path: string }, query: PageQueryDto) {
    const { revision, context } = await this.open(user, spaceId, revisionId);
    const subtree = await this.content.subtree(revision.id, where);
    if (subtree.length === 0) {
      throw new NotFoundException('pageId' in where ? `Page ${where.pageId} not found` : `No page at path ${where.path}`);
    }
    // Relative refs need every page's path, not only the subtree's.
    const paths = query['format.markdown.refs'] === 'relative' ? await this.content.pagePaths(revision.id) : undefined;
    return new PagePresenter(context, subtree, paths).page(subtree[0], { format: query.format, refs: query['format.markdown.refs'] });
  }

  async listFiles(user: User, spaceId: string, revisionId: string | undefined, query: RevisionFilesQueryDto) {
    const { revision, context } = await this.open(user, spaceId, revisionId);
    const page = await this.content.listFiles(revision.id, query);
    return { ...page, items: page.items.map((file) => presentFile(context, file)) };
  }

  async file(user: User, spaceId: string, revisionId: string | undefined, fileId: string) {
    const { context, file } = await this.findFile(user, spaceId, revisionId, fileId);
    return presentFile(context, file);
  }

  /** A file's bytes, checked like every read of the space (the download URL carries no secret). */
  async download(user: User, spaceId: string, revisionId: string, fileId: string): Promise<{ file: RevisionFile; data: Buffer }> {
    const { file } = await this.findFile(user, spaceId, revisionId, fileId);
    const data = await this.content.blobData(file.blobId);
    if (!data) throw new NotFoundException(`File ${fileId} has no stored content`);
    return { file, data };
  }

  async findFile(user: User, spaceId: string, revisionId: string | undefined, fileId: string): Promise<ReadableRevision & { file: RevisionFile }> {
    const readable = await this.open(user, spaceId, revisionId);
    const file = await this.content.findFile(readable.revision.id, fileId);
    if (!file) throw new NotFoundException(`File ${fileId} not found`);
    return { ...readable, file };
  }
}
