import type { LatestReview } from './review.read-model';
import type { SpaceMergeRules } from './review.entity';

export type MergeRulesSettings = Pick<SpaceMergeRules, 'requiredApprovals' | 'blockOnChangesRequested' | 'adminsCanOverride'>;

/** A space without a stored setting has no rule: merges need only the `merge` permission. */
export const NO_MERGE_RULES: MergeRulesSettings = { requiredApprovals: 0, blockOnChangesRequested: false, adminsCanOverride: false };

/**
 * Why the rules refuse to merge a change request whose head is `head`, given each reviewer's latest
 * review; null when they allow it. An approval counts only on the current head (a review of an
 * older revision did not see what is merged); a request for changes stands until its reviewer
 * reviews again, whatever the revision (new commits do not answer it).
 */
export function mergeRefusal(rules: MergeRulesSettings, latest: LatestReview[], head: string): string | null {
  const reasons: string[] = [];
  const blocking = latest.filter((review) => review.status === 'changes-requested');
  if (rules.blockOnChangesRequested && blocking.length > 0) {
    reasons.push(`rule blockOnChangesRequested: ${blocking.length} reviewer(s) requested changes (${blocking.map((review) => review.reviewerId).join(', ')})`);
  }
  const approvals = latest.filter((review) => review.status === 'approved' && review.revisionId === head).length;
  if (approvals < rules.requiredApprovals) {
    reasons.push(`rule requiredApprovals: ${rules.requiredApprovals} approval(s) of the current revision ${head} needed, ${approvals} given`);
  }
  return reasons.length > 0 ? `The space's merge rules refuse this merge: ${reasons.join('; ')}` : null;
}
