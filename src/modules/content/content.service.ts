import { Injectable, NotFoundException } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { SpaceAccess } from '../access/space-access.service';
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
    private readonly content: ContentRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * The revision to read (the active one when `revisionId` is undefined); 404 when it is not the
   * space's. `access` comes from the route's `@SpaceAction(CONTENT_POLICY.read)`.
   */
  async open(access: SpaceAccess, revisionId?: string): Promise<ReadableRevision> {
    const spaceId = access.space.id;
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

  async revision(access: SpaceAccess, revisionId: string | undefined, query: RevisionQueryDto) {
    const { revision, context } = await this.open(access, revisionId);
    const [pages, files, reusableContents] = await Promise.all([
      this.content.pages(revision.id),
      this.content.files(revision.id),
      this.content.reusableContents(revision.id),
    ]);
    return presentRevision(context, revision, { pages, files, reusableContents }, { metadata: query.metadata });
  }

  async pages(access: SpaceAccess, revisionId: string | undefined) {
    const { revision, context } = await this.open(access, revisionId);
    return { pages: new PagePresenter(context, await this.content.pages(revision.id)).roots() };
  }

  async page(access: SpaceAccess, revisionId: string | undefined, where: { pageId: string } | { path: string }, query: PageQueryDto) {
    const { revision, context } = await this.open(access, revisionId);
    const subtree = await this.content.subtree(revision.id, where);
    if (subtree.length === 0) {
      throw new NotFoundException('pageId' in where ? `Page ${where.pageId} not found` : `No page at path ${where.path}`);
    }
    // Relative refs need every page's path, not only the subtree's.
    const paths = query['format.markdown.refs'] === 'relative' ? await this.content.pagePaths(revision.id) : undefined;
    return new PagePresenter(context, subtree, paths).page(subtree[0], { format: query.format, refs: query['format.markdown.refs'] });
  }

  async listFiles(access: SpaceAccess, revisionId: string | undefined, query: RevisionFilesQueryDto) {
    const { revision, context } = await this.open(access, revisionId);
    const page = await this.content.listFiles(revision.id, query);
    return { ...page, items: page.items.map((file) => presentFile(context, file)) };
  }

  async file(access: SpaceAccess, revisionId: string | undefined, fileId: string) {
    const { context, file } = await this.findFile(access, revisionId, fileId);
    return presentFile(context, file);
  }

  /** A file's bytes, checked like every read of the space (the download URL carries no secret). */
  async download(access: SpaceAccess, revisionId: string, fileId: string): Promise<{ file: RevisionFile; data: Buffer }> {
    const { file } = await this.findFile(access, revisionId, fileId);
    const data = await this.content.blobData(file.blobId);
    if (!data) throw new NotFoundException(`File ${fileId} has no stored content`);
    return { file, data };
  }

  async findFile(access: SpaceAccess, revisionId: string | undefined, fileId: string): Promise<ReadableRevision & { file: RevisionFile }> {
    const readable = await this.open(access, revisionId);
    const file = await this.content.findFile(readable.revision.id, fileId);
    if (!file) throw new NotFoundException(`File ${fileId} not found`);
    return { ...readable, file };
  }
}
