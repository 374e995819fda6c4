import { Injectable } from '@nestjs/common';
import { SpaceAccess } from '../../access/space-access.service';
import { ContentService } from '../../content/content.service';
import type { RevisionFileUrl, SemanticChangesView } from '../../content/semantic/semantic-changes.read-model';
import { SemanticChangesService } from '../../content/semantic/semantic-changes.service';
import { User } from '../../users/user.entity';
import type { ChangeRequestView } from '../change-request.read-model';
import { ChangeRequestsRepository } from '../change-requests.repository';
import { ChangeRequestsService } from '../change-requests.service';

export interface ChangesOutcome {
  view: SemanticChangesView;
  /** Signed file URLs for a reader (site token), else none. */
  fileUrl?: RevisionFileUrl;
  mergedFrom?: ChangeRequestView;
}

/**
 * Semantic changes of a change request (its head against its base: `revisionMergedAncestor`, else
 * `revisionInitial`) and of a revision (against its first parent; a merge names the change request
 * it merged). Computed from the two revisions' stored rows (`SemanticChangesService`).
 */
@Injectable()
export class ChangeRequestChangesService {
  constructor(
    private readonly changeRequests: ChangeRequestsService,
    private readonly rows: ChangeRequestsRepository,
    private readonly content: ContentService,
    private readonly semantic: SemanticChangesService,
  ) {}

  async ofChangeRequest(access: SpaceAccess, idOrNumber: string, limit: number, reader: boolean): Promise<ChangesOutcome> {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const base = cr.revisionMergedAncestor ?? cr.revisionInitial;
    const view = await this.semantic.between(base, cr.revision, limit);
    return { view, fileUrl: reader ? await this.signer(access, [base, cr.revision]) : undefined };
  }

  async ofRevision(user: User, access: SpaceAccess, revisionId: string, limit: number, reader: boolean): Promise<ChangesOutcome> {
    const { revision } = await this.content.open(access, revisionId);
    const parent = revision.parents[0] ?? null;
    const view = await this.semantic.between(parent, revision.id, limit);
    const outcome: ChangesOutcome = { view, fileUrl: reader ? await this.signer(access, parent ? [parent, revision.id] : [revision.id]) : undefined };
    if (revision.type === 'merge') {
      const cr = await this.rows.mergedInto(access.space.id, revision.id);
      if (cr) outcome.mergedFrom = await this.changeRequests.view(user, cr, access);
    }
    return outcome;
  }

  /** A reader's file URLs must load without a token: each revision's files signed for it. */
  private async signer(access: SpaceAccess, revisionIds: string[]): Promise<RevisionFileUrl> {
    const signers = new Map<string, (fileId: string) => string>();
    for (const id of revisionIds) {
      const context = await this.content.forReaders((await this.content.open(access, id)).context);
      if (context.fileUrl) signers.set(id, context.fileUrl);
    }
    return (revisionId, fileId) => signers.get(revisionId)?.(fileId) ?? '';
  }
}
