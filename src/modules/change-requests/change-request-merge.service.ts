import { Inject, Injectable } from '@nestjs/common';
import { SpaceAccess } from '../access/space-access.service';
import { SpaceUnitOfWork, SpaceWrite } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import { ChangeRequestContentService } from './change-request-content.service';
import type { TreePage } from './authoring/tree-editor';
import { ChangeRequestRevisions, RevisionChanges } from './change-request-revisions';
import { ChangeRequest } from './change-request.entity';
import { changeRequestError } from './change-request.errors';
import { CHANGE_REQUEST_POLICY, counterDelta } from './change-request.policy';
import type { MergeOutcome } from './change-request.read-model';
import { ChangeRequestsRepository } from './change-requests.repository';
import { mergeChangedPages } from './merge/partial-merge';
import { effectiveMergeRules } from '../space-model/merge-rules';
import { mergeRefusal } from './reviews/merge-rules';
import { ReviewsRepository } from './reviews/reviews.repository';
import { ReviewsService } from './reviews/reviews.service';
import { MERGE_RULES_CONTEXT_PRESENTER, type MergeRulesContextPresenter } from './reviews/review.read-model';
import { bodiesToMerge, describeConflicts } from './merge/three-way-merge';

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
    private readonly reviews: ReviewsRepository,
    private readonly reviewing: ReviewsService,
    @Inject(MERGE_RULES_CONTEXT_PRESENTER) private readonly presentRulesContext: MergeRulesContextPresenter,
  ) {}

  /** Pulls main into the change request: a new head on its line, based on main's active revision. */
  update(user: User, access: SpaceAccess, idOrNumber: string): Promise<MergeOutcome> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      const main = write.space.revisionId;
      if ((cr.revisionMergedAncestor ?? cr.revisionInitial) === main) return { revision: cr.revision, result: 'update' };
      const merged = await this.merge3(write, cr);
      const { id: revision } = await this.revisions.writeChanges({ ...merged, parents: [cr.revision, main], type: 'update', createdBy: user.id }, write.em);
      await this.rows.update(cr.id, { revision, revisionMergedAncestor: main }, write.em);
      await this.rows.addContributor(cr.id, user.id, write.em);
      return { revision, result: 'update' };
    });
  }

  /** Makes the merge of the change request and main the space's active revision, and marks the change request merged. */
  merge(user: User, access: SpaceAccess, idOrNumber: string): Promise<MergeOutcome> {
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.merge, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      await this.checkMergeRules(write, cr, user);
      const main = write.space.revisionId;
      const merged = await this.merge3(write, cr);
      const revision = await write.commitRevision((baseRevisionId, em) =>
        this.revisions.writeChanges({ ...merged, parents: [baseRevisionId, cr.revision], type: 'merge', createdBy: user.id }, em),
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

  /**
   * The space's merge rules (its public `mergeRules`, else its organization's, and the Quire extension's
   * approvals), read under the space lock that reviews are written under too: a review committed
   * before the merge counts, one submitted (or a head moved by authoring) meanwhile waits for the
   * merge to finish. 409 `change_request.merge_rule` naming each broken rule.
   */
  private async checkMergeRules(write: SpaceWrite, cr: ChangeRequest, user: User): Promise<void> {
    const space = write.space;
    const rules = effectiveMergeRules(space.mergeRules, await this.reviews.organizationMergeRules(space.organizationId, write.em));
    const requiredApprovals = (await this.reviews.mergeRules(space.id, write.em))?.requiredApprovals ?? 0;
    if (rules.type === 'none' && requiredApprovals === 0) return;
    const custom = rules.type === 'rules' && rules.rules.some((rule) => rule.rule === 'custom');
    const refusal = mergeRefusal({
      rules,
      requiredApprovals,
      space,
      changeRequest: cr,
      upToDate: (cr.revisionMergedAncestor ?? cr.revisionInitial) === space.revisionId,
      reviews: await this.reviews.latestByReviewer(cr.id, write.em),
      actor: { id: user.id, displayName: user.displayName },
      evaluation: custom ? this.presentRulesContext(await this.reviewing.mergeRulesContext(user, write, cr)) : undefined,
    });
    if (refusal) throw changeRequestError('change_request.merge_rule', refusal);
  }

  /**
   * The merge, read from what differs: the pages whose rows differ between the base and either
   * side (one SQL comparison), bodies only where both sides changed one, and the context the tree
   * checks need (sibling groups, ancestors) from main's revision by index. Answers the changes to
   * write on top of main's revision.
   */
  private async merge3(write: SpaceWrite, cr: ChangeRequest): Promise<Omit<RevisionChanges, 'parents' | 'type' | 'createdBy'>> {
    const spaceId = write.space.id;
    const base = cr.revisionMergedAncestor ?? cr.revisionInitial;
    const main = write.space.revisionId;
    const em = write.em;
    const differing = await this.rows.changedPages(base, cr.revision, main, em);
    const sides = (side: 'base' | 'ours' | 'theirs') => differing.map((entry) => entry[side]).filter((page): page is TreePage => !!page);
    const both = new Set(bodiesToMerge(sides('base'), sides('ours'), sides('theirs')));
    if (both.size > 0) {
      const pages = differing.filter((entry) => both.has(entry.pageId)).flatMap((entry) => [entry.base, entry.ours, entry.theirs]);
      await this.revisions.withBodies(
        pages.filter((page): page is TreePage => !!page),
        em,
      );
    }
    const result = await mergeChangedPages(differing, {
      children: (parentIds) => this.rows.childRows(main, parentIds, em),
      ancestors: (ids) => this.rows.ancestorRows(main, ids, em),
    });
    if (result.conflicts.length > 0) throw changeRequestError('change_request.conflict', describeConflicts(result.conflicts));
    return {
      spaceId,
      base: main,
      changed: result.changed,
      removed: result.removed,
      newFiles: await this.rows.addedFiles(base, cr.revision, main, em),
    };
  }
}
