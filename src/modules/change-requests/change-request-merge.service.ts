import { Injectable } from '@nestjs/common';
import { SpaceAccess } from '../access/space-access.service';
import { SpaceUnitOfWork, SpaceWrite } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import type { DraftFile } from '../content/revision-writer';
import { ChangeRequestContentService } from './change-request-content.service';
import { ChangeRequestRevisions, LoadedRevision } from './change-request-revisions';
import { ChangeRequest } from './change-request.entity';
import { changeRequestError } from './change-request.errors';
import { CHANGE_REQUEST_POLICY, counterDelta } from './change-request.policy';
import type { MergeOutcome } from './change-request.read-model';
import { ChangeRequestsRepository } from './change-requests.repository';
import { bodiesToMerge, describeConflicts, mergePageTrees } from './merge/three-way-merge';

/**
 * Update from main and merge: three-way merges of the change request's head (ours) and the space's
 * active revision (theirs) on their common base (`revisionMergedAncestor`, else `revisionInitial`).
 * Both run in the space's unit of work: the space row is locked, so two merges on one space run one
 * after the other, and the second merges onto the revision the first made active. A conflict
 * answers 409 naming the pages, and nothing is written.
 */
@Injectable()
export class ChangeRequestMergeService {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly authoring: ChangeRequestContentService,
    private readonly rows: ChangeRequestsRepository,
    private readonly revisions: ChangeRequestRevisions,
  ) {}

  /** Pulls main into the change request: a new head on its line, based on main's active revision. */
  update(user: User, access: SpaceAccess, idOrNumber: string): Promise<MergeOutcome> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      const main = write.space.revisionId;
      if ((cr.revisionMergedAncestor ?? cr.revisionInitial) === main) return { revision: cr.revision, result: 'update' };
      const merged = await this.merge3(write, cr);
      const { id: revision } = await this.revisions.write({ ...merged.draft, parents: [cr.revision, main], type: 'update', createdBy: user.id }, write.em);
      await this.rows.update(cr.id, { revision, revisionMergedAncestor: main }, write.em);
      await this.rows.addContributor(cr.id, user.id, write.em);
      return { revision, result: 'update' };
    });
  }

  /** Makes the merge of the change request and main the space's active revision, and marks the change request merged. */
  merge(user: User, access: SpaceAccess, idOrNumber: string): Promise<MergeOutcome> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.merge, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      const main = write.space.revisionId;
      const merged = await this.merge3(write, cr);
      const revision = await write.commitRevision((baseRevisionId, em) =>
        this.revisions.write({ ...merged.draft, parents: [baseRevisionId, cr.revision], type: 'merge', createdBy: user.id }, em),
      );
      await this.rows.update(
        cr.id,
        { status: 'merged', revisionMerged: revision.id, revisionMergedAncestor: main, mergedAt: new Date(), mergedBy: user.id },
        write.em,
      );
      await write.count(counterDelta(cr.status, 'merged'));
      return { revision: revision.id, result: 'merge' };
    });
  }

  private async merge3(write: SpaceWrite, cr: ChangeRequest) {
    const spaceId = write.space.id;
    const baseId = cr.revisionMergedAncestor ?? cr.revisionInitial;
    const main = write.space.revisionId;
    const ours = await this.revisions.load(spaceId, cr.revision, write.em);
    const theirs = await this.revisions.load(spaceId, main, write.em);
    // Nothing happened on main since the base: the change request's head is the result.
    const base = baseId === main ? theirs : await this.revisions.load(spaceId, baseId, write.em);
    const both = new Set(bodiesToMerge(base.pages, ours.pages, theirs.pages));
    if (both.size > 0) {
      for (const revision of [base, ours, theirs])
        await this.revisions.withBodies(
          revision.pages.filter((page) => both.has(page.pageId)),
          write.em,
        );
    }
    const result = mergePageTrees(base.pages, ours.pages, theirs.pages);
    if (result.conflicts.length > 0) throw changeRequestError('change_request.conflict', describeConflicts(result.conflicts));
    return {
      draft: {
        spaceId,
        pages: result.pages,
        dirty: result.changed,
        base: main,
        removed: [...result.removed],
        files: mergeFiles(base, ours, theirs),
        newFiles: mergeFiles(base, ours, theirs).slice(theirs.files.length),
        reusableContents: theirs.reusableContents,
        variables: theirs.variables,
      },
    };
  }
}

/** Files by id: main's, plus those the change request added (files are never deleted by a change request). */
function mergeFiles(base: LoadedRevision, ours: LoadedRevision, theirs: LoadedRevision): DraftFile[] {
  const known = new Set([...base.files, ...theirs.files].map((file) => file.fileId));
  return [...theirs.files, ...ours.files.filter((file) => !known.has(file.fileId))];
}
