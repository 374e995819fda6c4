import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { imageSize } from 'image-size';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { newId } from '../../../common/ids';
import { AppConfig } from '../../../config/app-config';
import { JobsService } from '../../../jobs/jobs.service';
import { SpaceAccess, SpaceAccessService } from '../../access/space-access.service';
import { SpaceUnitOfWork } from '../../space-writes/space-unit-of-work';
import { User } from '../../users/user.entity';
import { contentError } from '../content.errors';
import { ContentRepository } from '../content.repository';
import { documentPage, DraftFile, DraftPage, RevisionWriter, sha256 } from '../revision-writer';
import { RevisionFile } from '../revision-file.entity';
import { ExportToGitRepositoryDto, ImportGitRepositoryDto } from './git-sync.dto';
import { GIT_SYNC, GitSyncPayload } from './git-sync.job';
import { GitSyncRepository } from './git-sync.repository';
import { LayoutSpace } from './git-layout';
import { checkRef, commitTree, confinedPath, GitRepositoryError, isRepository, readTree, resolveCommit } from './git-repository';
import { exportLayout } from './layout-export';
import { importLayout, LayoutError } from './layout-import';

/** What a sync acts with: Git Sync writes content like an edit, and is refused while the space is locked. */
const GIT_SYNC_ACTION = 'triggerGitSync' as const;

/**
 * Git Sync against repositories on the server's disk (`GIT_SYNC_ROOT`): the routes check the
 * request and queue a job (`content.git-sync`); the job exports the space's active revision as one
 * commit, or imports a commit as a new revision replacing the space's content. A client sees an
 * import land as the space's new revision (its `git` names the commit), an export as the commit.
 */
@Injectable()
export class GitSyncService implements OnModuleInit {
  private readonly logger = new Logger('GitSync');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly jobs: JobsService,
    private readonly access: SpaceAccessService,
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly content: ContentRepository,
    private readonly rows: GitSyncRepository,
    private readonly writer: RevisionWriter,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.jobs.register(GIT_SYNC, (payload) => this.run(payload));
  }

  /** Checks the repository and ref now (a 400 for what can never work), then queues the export. */
  async requestExport(user: User, access: SpaceAccess, dto: ExportToGitRepositoryDto): Promise<void> {
    const { path, ref } = this.target(dto.url, dto.ref);
    // Queued in a transaction of its own: the request's audit event commits with the job.
    await this.dataSource.transaction((manager) =>
      this.jobs.send(
        GIT_SYNC,
        { direction: 'export', spaceId: access.space.id, userId: user.id, path, ref, url: dto.url, commitMessage: dto.commitMessage },
        { manager },
      ),
    );
  }

  async requestImport(user: User, access: SpaceAccess, dto: ImportGitRepositoryDto): Promise<void> {
    const { path, ref } = this.target(dto.url, dto.ref);
    if (!(await isRepository(path))) throw contentError('content.git_bad_repository', 'url: no git repository there');
    if (!(await resolveCommit(path, ref))) throw contentError('content.git_bad_repository', `ref: ${dto.ref} not found in the repository`);
    await this.dataSource.transaction((manager) =>
      this.jobs.send(GIT_SYNC, { direction: 'import', spaceId: access.space.id, userId: user.id, path, ref, url: dto.url }, { manager }),
    );
  }

  private target(url: string, ref: string): { path: string; ref: string } {
    try {
      return { path: confinedPath(url, this.config.gitSyncRoot), ref: checkRef(ref) };
    } catch (error) {
      if (error instanceof GitRepositoryError) throw contentError('content.git_bad_repository', error.message);
      throw error;
    }
  }

  /** The job: a repository or layout that cannot be read fails at once (no retry would change it); the rest is retried. */
  async run(payload: GitSyncPayload): Promise<void> {
    const started = Date.now();
    const user = await this.rows.user(payload.userId, this.dataSource.manager);
    if (!user) return;
    try {
      const count = payload.direction === 'export' ? await this.export(user, payload) : await this.import(user, payload);
      this.logger.log(`space ${payload.spaceId}: ${payload.direction} of ${count} pages (${payload.ref}) in ${Date.now() - started} ms`);
    } catch (error) {
      // What a retry cannot change (an unreadable repository or layout, a refused or invalid write) ends the job.
      if (!(error instanceof GitRepositoryError || error instanceof LayoutError || error instanceof DomainError)) throw error;
      this.logger.warn(`space ${payload.spaceId}: ${payload.direction} (${payload.ref}) failed: ${error.message}`);
    }
  }

  /** Writes the space's active revision as one commit on `ref`; returns the number of pages. */
  async export(user: User, payload: GitSyncPayload): Promise<number> {
    const access = await this.access.require(user, payload.spaceId, GIT_SYNC_ACTION);
    const space = await this.snapshot(payload.spaceId, access.space.revisionId, this.dataSource.manager, true);
    const files = await exportLayout(space);
    const author = { name: user.displayName || 'Quire', email: user.email };
    await commitTree(payload.path, payload.ref, files, payload.commitMessage ?? 'Export from Quire', author);
    return space.pages.length;
  }

  /**
   * Reads the commit, then replaces the space's content with it in one revision written through the
   * space's unit of work (the caller's rights are checked again under the space's lock).
   */
  async import(user: User, payload: GitSyncPayload): Promise<number> {
    const tree = await readTree(payload.path, payload.ref);
    let count = 0;
    await this.spaceWrites.run(payload.spaceId, user, GIT_SYNC_ACTION, (write) =>
      write.commitRevision(async (baseId, em) => {
        const previous = await this.snapshot(payload.spaceId, baseId, em, false);
        const base = await this.content.files(baseId, em);
        const imported = await importLayout(tree.files, previous, newId);
        count = imported.pages.length;
        const pages: DraftPage[] = imported.pages.map(({ markdown, ...page }) => documentPage({ ...page, markdown }));
        const files = this.draftFiles(imported, base);
        // Reusable bodies are documents like pages': stored the same way, through the same content-addressed store.
        const bodies = imported.reusableContents.map((item) => ({ markdown: item.markdown }) as DraftPage);
        await this.writer.storeContent(bodies, [], em);
        return this.writer.write(
          {
            spaceId: payload.spaceId,
            parents: [baseId],
            type: 'edits',
            createdBy: user.id,
            pages,
            files,
            reusableContents: imported.reusableContents.map((item, index) => ({
              reusableContentId: item.reusableContentId,
              title: item.title,
              documentId: bodies[index].documentId ?? null,
            })),
            variables: imported.variables,
            git: { oid: tree.commit, message: tree.message, createdByGitBook: false, url: payload.url, ref: payload.ref },
          },
          em,
        );
      }),
    );
    return count;
  }

  /** A file whose bytes did not change keeps its row (blob, dimensions); new bytes get their dimensions read. */
  private draftFiles(imported: LayoutSpace, base: RevisionFile[]): DraftFile[] {
    const kept = new Map(base.map((file) => [file.fileId, file]));
    return imported.files.map((file) => {
      const previous = kept.get(file.fileId);
      if (previous && previous.blobId === sha256(file.data)) {
        const { revisionId: _revisionId, ...row } = previous;
        return { ...row, name: file.name };
      }
      let size: { width?: number; height?: number } = {};
      if (file.contentType.startsWith('image/')) {
        try {
          size = imageSize(file.data);
        } catch {
          // Not an image after all: no dimensions.
        }
      }
      return {
        fileId: file.fileId,
        name: file.name,
        contentType: file.contentType,
        size: file.data.length,
        width: size.width ?? null,
        height: size.height ?? null,
        data: file.data,
      };
    });
  }

  /** A revision as the layout sees it; `withBytes` reads the files' bytes (an export writes them, an import only matches them). */
  async snapshot(spaceId: string, revisionId: string, em: EntityManager, withBytes: boolean): Promise<LayoutSpace> {
    const revision = await this.content.findRevision(spaceId, revisionId, em);
    const tree = await this.content.tree(revisionId, em);
    const files = await this.content.files(revisionId, em);
    const reusable = await this.content.reusableContents(revisionId, em);
    const bodies = await this.rows.bodies(
      [...tree.map((page) => page.documentId), ...reusable.map((item) => item.documentId)].filter((id): id is string => id !== null),
      em,
    );
    const bytes = withBytes
      ? await this.rows.blobs(
          files.map((file) => file.blobId),
          em,
        )
      : new Map<string, Buffer>();
    const body = (id: string | null) => (id ? (bodies.get(id) ?? '') : '');
    return {
      pages: tree.map((page) => ({ ...page, markdown: body(page.documentId) })),
      files: files.map((file) => ({ fileId: file.fileId, name: file.name, contentType: file.contentType, data: bytes.get(file.blobId) ?? Buffer.alloc(0) })),
      reusableContents: reusable.map((item) => ({ reusableContentId: item.reusableContentId, title: item.title, markdown: body(item.documentId) })),
      variables: revision?.variables ?? {},
    };
  }
}
