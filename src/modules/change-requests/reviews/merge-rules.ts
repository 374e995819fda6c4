import { evaluateExpression } from '../../../common/expressions/expression';
import type { MergeRule, MergeRulesStandalone } from '../../space-model/merge-rules';
import type { Space } from '../../space-model/space.entity';
import type { ChangeRequest } from '../change-request.entity';
import type { LatestReview } from './review.read-model';

/** What a merge is checked against: the space's effective public rules, the Quire extension's approvals, the reviews, the merger. */
export interface MergeCheck {
  rules: MergeRulesStandalone;
  /** The Quire extension (`PUT …/merge-rules`): approvals of the current revision needed (0: none beyond the public rules). */
  requiredApprovals: number;
  space: Pick<Space, 'id' | 'title' | 'organizationId' | 'visibility' | 'revisionId'>;
  changeRequest: Pick<ChangeRequest, 'id' | 'number' | 'status' | 'subject' | 'createdBy' | 'revision'>;
  /** main's active revision is the change request's base: nothing on main it has not seen. */
  upToDate: boolean;
  /** Each reviewer's latest review, with whether it is outdated (another head, or requested again since). */
  reviews: LatestReview[];
  actor: { id: string; displayName: string };
  /**
   * The public `MergeRulesEvaluationContext` (`space`, `changeRequest`, `reviews`, `actor` as the API
   * presents them), the scope of `custom` rules; the merge builds it only when the rules have one.
   */
  evaluation?: object;
}

/**
 * Why the rules refuse the merge, naming each broken rule; null when they allow it. A rule's users
 * in `allow_bypass` merge anyway (the extension's approvals included); nobody else does.
 *
 * What counts: each reviewer's latest review. An approval counts only while it is not outdated (of
 * the head being merged, and its reviewer not asked again since): a review of an older revision did
 * not see what is merged. A request for changes stands until its reviewer reviews again, whatever
 * the revision (new commits do not answer it).
 */
export function mergeRefusal(check: MergeCheck): string | null {
  const rules = check.rules.type === 'rules' ? check.rules.rules : [];
  if (rules.some((rule) => rule.rule === 'allow_bypass' && rule.users.includes(check.actor.id))) return null;
  const approvers = new Set(check.reviews.filter((review) => review.status === 'approved' && !review.outdated).map((review) => review.reviewerId));
  const reasons = rules.map((rule) => broken(rule, check, approvers)).filter((reason): reason is string => reason !== null);
  if (approvers.size < check.requiredApprovals) {
    reasons.push(`rule requiredApprovals (Quire extension): ${check.requiredApprovals} approval(s) of the current revision needed, ${approvers.size} given`);
  }
  return reasons.length > 0 ? `The merge rules refuse this merge: ${reasons.join('; ')}` : null;
}

function broken(rule: MergeRule, check: MergeCheck, approvers: Set<string>): string | null {
  const head = check.changeRequest.revision;
  switch (rule.rule) {
    case 'allow_bypass':
      return null;
    case 'require_at_least_one_review':
      return check.reviews.some((review) => !review.outdated) ? null : `rule ${rule.rule}: no review of the current revision ${head}`;
    case 'require_at_least_one_approved_review':
      return approvers.size > 0 ? null : `rule ${rule.rule}: no approval of the current revision ${head}`;
    case 'require_all_reviews_approved': {
      const blocking = check.reviews.filter((review) => review.status === 'changes-requested').map((review) => review.reviewerId);
      return blocking.length === 0 ? null : `rule ${rule.rule}: changes requested by ${blocking.join(', ')}`;
    }
    case 'require_specific_reviewers': {
      const missing = rule.users.filter((id) => !approvers.has(id));
      return missing.length === 0 ? null : `rule ${rule.rule}: no approval of the current revision by ${missing.join(', ')}`;
    }
    case 'require_one_of_specific_reviewers':
      return rule.users.some((id) => approvers.has(id)) ? null : `rule ${rule.rule}: no approval of the current revision by any of ${rule.users.join(', ')}`;
    case 'require_up_to_date_change_request':
      return check.upToDate ? null : `rule ${rule.rule}: the change request is behind the space's current revision (update it from main)`;
    case 'require_change_request_subject':
      return check.changeRequest.subject.trim() !== '' ? null : `rule ${rule.rule}: the change request has no subject`;
    case 'require_author_to_merge':
      return check.actor.id === check.changeRequest.createdBy ? null : `rule ${rule.rule}: only the change request's author may merge it`;
    case 'custom':
      return customRule(rule, check);
    default:
      // require_agent_review, require_change_request_description: refused when written; never satisfied if stored.
      return `rule ${rule.rule}: not supported`;
  }
}

/** A `custom` rule passes when its expression is truthy over the public `MergeRulesEvaluationContext` (`check.evaluation`); an error fails it. */
function customRule(rule: Extract<MergeRule, { rule: 'custom' }>, check: MergeCheck): string | null {
  let value: unknown;
  try {
    value = evaluateExpression(rule.expression, (check.evaluation ?? {}) as Record<string, unknown>);
  } catch (error) {
    return `rule custom (${rule.expression}): ${(error as Error).message}`;
  }
  return value ? null : `rule custom: ${rule.message ?? `${rule.expression} is false`}`;
}
