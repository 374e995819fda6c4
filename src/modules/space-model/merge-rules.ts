import { expressionProblem } from '../../common/expressions/expression';

/**
 * The public merge-rules configurations (`MergeRulesStandaloneConfiguration` on an organization,
 * `MergeRulesSpaceConfiguration` on a space): what merging a change request needs beyond the
 * `merge` permission. Stored as given (jsonb) on `organizations.merge_rules` and `spaces.merge_rules`
 * (null: `inherit`); enforced by the change-request merge (`change-requests/reviews/merge-rules.ts`).
 */
export const USER_LIST_RULES = ['require_specific_reviewers', 'require_one_of_specific_reviewers', 'allow_bypass'] as const;
export const PLAIN_RULES = [
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_agent_review',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
  'require_author_to_merge',
] as const;
/** Public rules Quire cannot satisfy: change requests have no description and there are no agent reviews. Refused on write (400). */
export const UNSUPPORTED_RULES: readonly string[] = ['require_agent_review', 'require_change_request_description'];

export type MergeRule =
  | { rule: (typeof USER_LIST_RULES)[number]; users: string[] }
  | { rule: (typeof PLAIN_RULES)[number] }
  | { rule: 'custom'; expression: string; message?: string };

export type MergeRulesStandalone = { type: 'rules'; rules: MergeRule[] } | { type: 'none' };
export type MergeRulesOfSpace = { type: 'inherit' } | MergeRulesStandalone;

export const NO_RULES: MergeRulesStandalone = { type: 'none' };
export const MAX_MERGE_RULES = 20;
export const MAX_RULE_USERS = 50;
export const MAX_RULE_EXPRESSION = 1000;
export const MAX_RULE_MESSAGE = 500;

/** What a space's merges obey: its own configuration, or its organization's when it inherits (null is `inherit`). */
export function effectiveMergeRules(space: MergeRulesOfSpace | null, organization: MergeRulesStandalone): MergeRulesStandalone {
  return !space || space.type === 'inherit' ? organization : space;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys of `value` that `allowed` does not name, as `path.key` (the body's unknown properties are refused, as everywhere). */
function extraKeys(value: Record<string, unknown>, allowed: string[], path: string): string | null {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `${path}.${extra}: is not a property of this rule`;
}

function ruleProblem(value: unknown, path: string): string | null {
  if (!isRecord(value)) return `${path}: must be an object`;
  const rule = value.rule;
  if ((USER_LIST_RULES as readonly unknown[]).includes(rule)) {
    const users = value.users;
    if (!Array.isArray(users) || users.length < 1 || users.length > MAX_RULE_USERS) return `${path}.users: must be an array of 1 to ${MAX_RULE_USERS} user ids`;
    if (users.some((id) => typeof id !== 'string' || id.length < 1 || id.length > 64)) return `${path}.users: each must be a user id`;
    return extraKeys(value, ['rule', 'users'], path);
  }
  if ((PLAIN_RULES as readonly unknown[]).includes(rule)) {
    if (UNSUPPORTED_RULES.includes(rule as string))
      return `${path}.rule: ${rule as string} is not supported (${rule === 'require_agent_review' ? 'Quire has no agent reviews' : 'change requests have no description'})`;
    return extraKeys(value, ['rule'], path);
  }
  if (rule === 'custom') {
    if (typeof value.expression !== 'string' || value.expression.length < 1 || value.expression.length > MAX_RULE_EXPRESSION)
      return `${path}.expression: must be an expression of 1 to ${MAX_RULE_EXPRESSION} characters`;
    const syntax = expressionProblem(value.expression);
    if (syntax) return `${path}.expression: ${syntax}`;
    if (value.message !== undefined && (typeof value.message !== 'string' || value.message.length > MAX_RULE_MESSAGE))
      return `${path}.message: must be a string of at most ${MAX_RULE_MESSAGE} characters`;
    return extraKeys(value, ['rule', 'expression', 'message'], path);
  }
  return `${path}.rule: must be one of ${[...USER_LIST_RULES, ...PLAIN_RULES, 'custom'].join(', ')}`;
}

/** Null when `value` is a configuration of the public schema (with `inherit` on a space), else what is wrong, naming the field. */
export function mergeRulesProblem(value: unknown, options: { inherit: boolean; path?: string }): string | null {
  const path = options.path ?? 'mergeRules';
  const types = options.inherit ? ['inherit', 'rules', 'none'] : ['rules', 'none'];
  if (!isRecord(value)) return `${path}: must be an object`;
  if (!types.includes(value.type as string)) return `${path}.type: must be one of ${types.join(', ')}`;
  if (value.type !== 'rules') return extraKeys(value, ['type'], path);
  if (!Array.isArray(value.rules) || value.rules.length > MAX_MERGE_RULES) return `${path}.rules: must be an array of at most ${MAX_MERGE_RULES} rules`;
  for (const [index, rule] of value.rules.entries()) {
    const problem = ruleProblem(rule, `${path}.rules[${index}]`);
    if (problem) return problem;
  }
  return extraKeys(value, ['type', 'rules'], path);
}

/** The user ids a configuration names (to check they are members of the organization). */
export function mergeRuleUsers(value: MergeRulesOfSpace): string[] {
  if (value.type !== 'rules') return [];
  return [...new Set(value.rules.flatMap((rule) => ('users' in rule ? rule.users : [])))];
}
