import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { OutboundHttpClient } from '../../common/outbound/outbound-http.client';
import { SpaceAccess } from '../access/space-access.service';
import { ContentRepository } from '../content/content.repository';
import { sha256, type DraftFile } from '../content/revision-writer';
import type { RevisionFile } from '../content/revision-file.entity';
import { SpaceUnitOfWork, SpaceWrite } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import { ContentChange, FileUpload, invalidChange, MAX_BASE64_BYTES, parseChanges, resolveDocuments } from './authoring/content-changes';
import { TreeEditor, TreePage } from './authoring/tree-editor';
import { ChangeRequestRevisions } from './change-request-revisions';
import { ChangeRequest } from './change-request.entity';
import { changeRequestError } from './change-request.errors';
import { acceptsChanges, CHANGE_REQUEST_POLICY } from './change-request.policy';
import type { ContentUpdateView } from './change-request.read-model';
import { ChangeRequestsRepository } from './change-requests.repository';
import { ChangeRequestsService } from './change-requests.service';

/** Bytes of an uploaded file, fetched or decoded before the write starts. */
interface Upload {
  index: number;
  file: FileUpload;
  data: Buffer;
  contentType: string;
}

/** An image's width and height from its header (PNG, GIF, JPEG), for `dimensions`. */
export function imageSize(data: Buffer, contentType: string): { width: number; height: number } | null {
  if (contentType === 'image/png' && data.length >= 24 && data.readUInt32BE(12) === 0x49484452)
    return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (contentType === 'image/gif' && data.length >= 10) return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  if (contentType === 'image/jpeg') {
    for (let i = 2; i + 9 < data.length;) {
      if (data[i] !== 0xff) return null;
      const marker = data[i + 1];
      const length = data.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: data.readUInt16BE(i + 7), height: data.readUInt16BE(i + 5) };
      i += 2 + length;
    }
  }
  return null;
}

/**
 * Authoring a change request (`updateChangeRequestContent`): a batch of 1–50 changes applied in
 * order to the change request's head, written as one new revision of its line, atomically (any
 * invalid change: 400 naming it, nothing written). Main content is untouched until merge.
 */
@Injectable()
export class ChangeRequestContentService {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly changeRequests: ChangeRequestsService,
    private readonly rows: ChangeRequestsRepository,
    private readonly revisions: ChangeRequestRevisions,
    private readonly content: ContentRepository,
    private readonly client: OutboundHttpClient,
  ) {}

  async apply(user: User, access: SpaceAccess, idOrNumber: string, raw: Record<string, unknown>[]): Promise<ContentUpdateView> {
    const changes = parseChanges(raw);
    // JSON documents become Markdown before anything is locked or written (large ones off the loop).
    await resolveDocuments(changes);
    // Fetching files can take time: outside the transaction, before the space is locked.
    const uploads = await this.fetchUploads(changes);
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const cr = await this.open(write, idOrNumber);
      const head = await this.revisions.load(write.space.id, cr.revision, write.em);
      const editor = new TreeEditor(head.pages, new Set(head.files.map((file) => file.fileId)));
      const newFiles: DraftFile[] = [];
      for (const [index, change] of changes.entries()) {
        switch (change.operation) {
          case 'insert_page':
            editor.insertPage(index, change);
            break;
          case 'update_page':
            editor.updatePage(index, change);
            break;
          case 'delete_page':
            editor.deletePage(index, change.page);
            break;
          case 'revert_page':
            editor.revertPage(index, change.page, await this.revertTarget(write, cr, index, change.revision));
            break;
          case 'insert_files':
            for (const upload of uploads.filter((entry) => entry.index === index)) {
              const fileId = newId();
              const size = imageSize(upload.data, upload.contentType);
              newFiles.push({
                fileId,
                name: upload.file.name,
                contentType: upload.contentType,
                size: upload.data.length,
                width: size?.width ?? null,
                height: size?.height ?? null,
                data: upload.data,
              });
              editor.addFile(upload.file.ref, fileId);
            }
            break;
        }
      }
      editor.finish();
      const outcomes = [...editor.outcomes.values()];
      const dirty = new Set(outcomes.filter((outcome) => outcome.object !== 'deleted_page').map((outcome) => outcome.page));
      const { id: revision } = await this.revisions.writeChanges(
        {
          spaceId: write.space.id,
          parents: [cr.revision],
          type: 'edits',
          createdBy: user.id,
          base: cr.revision,
          changed: [...editor.pages.values()].filter((page) => dirty.has(page.pageId)),
          removed: outcomes.filter((outcome) => outcome.object === 'deleted_page').map((outcome) => outcome.page),
          newFiles,
        },
        write.em,
      );
      const updated = await this.rows.update(cr.id, { revision }, write.em);
      await this.rows.addContributor(cr.id, user.id, write.em);
      const inserted: RevisionFile[] = newFiles.map(({ data: _data, ...file }) => ({
        ...file,
        revisionId: revision,
        blobId: sha256(_data as Buffer),
        createdAt: new Date(),
      }));
      return {
        view: await this.changeRequests.view(user, updated, write.access, write.space.revisionId),
        changes: [...editor.outcomes.values()],
        insertedFiles: inserted,
      };
    });
  }

  /** The change request, locked, if it still takes changes (409 once merged or archived). */
  async open(write: SpaceWrite, idOrNumber: string): Promise<ChangeRequest> {
    const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
    if (!acceptsChanges(cr)) throw changeRequestError('change_request.closed', `Change request ${cr.number} is ${cr.status}: it takes no more changes`);
    return cr;
  }

  private async revertTarget(write: SpaceWrite, cr: ChangeRequest, index: number, revisionId: string | undefined): Promise<Map<string, TreePage>> {
    const id = revisionId ?? cr.revisionMergedAncestor ?? cr.revisionInitial;
    if (!(await this.content.findRevision(write.space.id, id, write.em)))
      throw invalidChange(index, `.revision: revision ${id} is not a revision of the space`);
    const loaded = await this.revisions.load(write.space.id, id, write.em);
    return new Map(loaded.pages.map((page) => [page.pageId, page]));
  }

  private async fetchUploads(changes: ContentChange[]): Promise<Upload[]> {
    const uploads: Upload[] = [];
    for (const [index, change] of changes.entries()) {
      if (change.operation !== 'insert_files') continue;
      for (const file of change.files) {
        if (file.base64 !== undefined) {
          const data = Buffer.from(file.base64, 'base64');
          if (data.length > MAX_BASE64_BYTES) throw invalidChange(index, `.files: ${file.name} is larger than 1 MB`);
          uploads.push({ index, file, data, contentType: file.contentType as string });
          continue;
        }
        try {
          const response = await this.client.get({ url: file.url as string, maxBytes: 10 * 1024 * 1024 });
          if (response.status !== 200) throw new Error(`answered ${response.status}`);
          uploads.push({ index, file, data: response.body, contentType: file.contentType ?? (response.contentType || 'application/octet-stream') });
        } catch (error) {
          throw changeRequestError(
            'change_request.file_fetch_failed',
            `changes[${index}].files: ${file.url} could not be fetched: ${(error as Error).message}`,
          );
        }
      }
    }
    return uploads;
  }
}
