import { mergeRefusal, type MergeCheck } from '../../src/modules/change-requests/reviews/merge-rules';
import { effectiveMergeRules, mergeRulesProblem, type MergeRule } from '../../src/modules/space-model/merge-rules';
import type { LatestReview } from '../../src/modules/change-requests/reviews/review.read-model';

const review = (reviewerId: string, status: LatestReview['status'], outdated = false): LatestReview => ({
  reviewerId,
  status,
  revisionId: outdated ? 'old' : 'head',
  outdated,
});

function check(rules: MergeRule[], overrides: Partial<MergeCheck> = {}): MergeCheck {
  return {
    rules: { type: 'rules', rules },
    requiredApprovals: 0,
    space: { id: 's1', title: 'Docs', organizationId: 'o1', visibility: 'private', revisionId: 'main' },
    changeRequest: { id: 'cr1', number: 1, status: 'open', subject: 'Fix typos', createdBy: 'author', revision: 'head' },
    upToDate: true,
    reviews: [],
    actor: { id: 'merger', displayName: 'Merger' },
    ...overrides,
  };
}

describe('mergeRefusal', () => {
  it('allows anything under `none`', () => {
    expect(mergeRefusal({ ...check([]), rules: { type: 'none' }, reviews: [review('a', 'changes-requested')] })).toBeNull();
  });

  it('counts approvals that are not outdated only', () => {
    const rule: MergeRule = { rule: 'require_at_least_one_approved_review' };
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'approved', true)] }))).toMatch(
      /require_at_least_one_approved_review: no approval of the current revision head/,
    );
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'approved', true), review('b', 'approved')] }))).toBeNull();
  });

  it('any current review satisfies require_at_least_one_review', () => {
    const rule: MergeRule = { rule: 'require_at_least_one_review' };
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'approved', true)] }))).toMatch(/no review of the current revision/);
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'changes-requested')] }))).toBeNull();
  });

  it('a request for changes blocks require_all_reviews_approved whatever revision it was of', () => {
    const rule: MergeRule = { rule: 'require_all_reviews_approved' };
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'approved'), review('c', 'changes-requested', true)] }))).toMatch(/changes requested by c/);
    expect(mergeRefusal(check([rule], { reviews: [review('a', 'approved')] }))).toBeNull();
  });

  it('specific reviewers: all of them, or one of them', () => {
    const reviews = [review('x', 'approved'), review('y', 'approved', true)];
    expect(mergeRefusal(check([{ rule: 'require_specific_reviewers', users: ['x', 'y'] }], { reviews }))).toMatch(/no approval of the current revision by y$/);
    expect(mergeRefusal(check([{ rule: 'require_specific_reviewers', users: ['x'] }], { reviews }))).toBeNull();
    expect(mergeRefusal(check([{ rule: 'require_one_of_specific_reviewers', users: ['y', 'z'] }], { reviews }))).toMatch(/by any of y, z/);
    expect(mergeRefusal(check([{ rule: 'require_one_of_specific_reviewers', users: ['y', 'x'] }], { reviews }))).toBeNull();
  });

  it('up to date, subject, author', () => {
    expect(mergeRefusal(check([{ rule: 'require_up_to_date_change_request' }], { upToDate: false }))).toMatch(/behind the space's current revision/);
    expect(mergeRefusal(check([{ rule: 'require_up_to_date_change_request' }]))).toBeNull();
    const blank = check([{ rule: 'require_change_request_subject' }]);
    expect(mergeRefusal({ ...blank, changeRequest: { ...blank.changeRequest, subject: '  ' } })).toMatch(/has no subject/);
    expect(mergeRefusal(blank)).toBeNull();
    expect(mergeRefusal(check([{ rule: 'require_author_to_merge' }]))).toMatch(/only the change request's author/);
    expect(mergeRefusal(check([{ rule: 'require_author_to_merge' }], { actor: { id: 'author', displayName: 'A' } }))).toBeNull();
  });

  it('names every broken rule, and allow_bypass lets its users (only) merge anyway, the extension included', () => {
    const rules: MergeRule[] = [
      { rule: 'require_at_least_one_approved_review' },
      { rule: 'require_change_request_subject' },
      { rule: 'allow_bypass', users: ['boss'] },
    ];
    const refused = check(rules, { requiredApprovals: 2, changeRequest: { ...check([]).changeRequest, subject: '' } });
    const message = mergeRefusal(refused) as string;
    expect(message).toMatch(/require_at_least_one_approved_review/);
    expect(message).toMatch(/require_change_request_subject/);
    expect(message).toMatch(/requiredApprovals \(Quire extension\): 2 approval\(s\) of the current revision needed, 0 given/);
    expect(mergeRefusal({ ...refused, actor: { id: 'boss', displayName: 'B' } })).toBeNull();
  });

  it('the extension counts distinct current approvers', () => {
    const base = check([], { requiredApprovals: 2, reviews: [review('a', 'approved'), review('b', 'approved', true)] });
    expect(mergeRefusal(base)).toMatch(/2 approval\(s\) of the current revision needed, 1 given/);
    expect(mergeRefusal({ ...base, reviews: [...base.reviews, review('c', 'approved')] })).toBeNull();
  });

  it('a custom rule passes when its expression is truthy over the evaluation context', () => {
    const rule: MergeRule = {
      rule: 'custom',
      expression: 'changeRequest.subject != "" && actor.id != changeRequest.createdBy.id && reviews.length >= 1',
      message: 'someone else merges, after a review',
    };
    const evaluation = (reviews: object[]) => ({
      space: { object: 'space', id: 's1', title: 'Docs' },
      changeRequest: { object: 'change-request', id: 'cr1', subject: 'Fix typos', createdBy: { object: 'user', id: 'author', displayName: 'Author' } },
      reviews,
      actor: { object: 'user', id: 'merger', displayName: 'Merger' },
    });
    expect(mergeRefusal(check([rule], { evaluation: evaluation([]) }))).toMatch(/rule custom: someone else merges, after a review/);
    expect(mergeRefusal(check([rule], { evaluation: evaluation([{ object: 'change-request-review', status: 'approved' }]) }))).toBeNull();
    expect(mergeRefusal(check([{ rule: 'custom', expression: 'space.title.length()' }], { evaluation: evaluation([]) }))).toMatch(
      /rule custom \(space.title.length\(\)\)/,
    );
    // The scope is the evaluation context alone: what the merge did not give, the expression does not see.
    expect(mergeRefusal(check([{ rule: 'custom', expression: 'changeRequest.subject != undefined' }]))).toMatch(/rule custom/);
  });
});

describe('mergeRulesProblem', () => {
  it('accepts the public configurations', () => {
    expect(mergeRulesProblem({ type: 'inherit' }, { inherit: true })).toBeNull();
    expect(mergeRulesProblem({ type: 'none' }, { inherit: false })).toBeNull();
    expect(
      mergeRulesProblem(
        {
          type: 'rules',
          rules: [
            { rule: 'require_specific_reviewers', users: ['u1'] },
            { rule: 'require_at_least_one_review' },
            { rule: 'custom', expression: 'true', message: 'm' },
          ],
        },
        { inherit: false },
      ),
    ).toBeNull();
  });

  it('names the field that is wrong', () => {
    expect(mergeRulesProblem({ type: 'inherit' }, { inherit: false })).toBe('mergeRules.type: must be one of rules, none');
    expect(mergeRulesProblem({ type: 'rules' }, { inherit: true })).toMatch(/^mergeRules.rules: must be an array/);
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule: 'allow_bypass' }] }, { inherit: true })).toMatch(/^mergeRules.rules\[0\].users:/);
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule: 'nope' }] }, { inherit: true })).toMatch(/^mergeRules.rules\[0\].rule: must be one of/);
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule: 'require_author_to_merge', users: [] }] }, { inherit: true })).toMatch(
      /rules\[0\].users: is not a property/,
    );
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule: 'custom', expression: 'a b' }] }, { inherit: true })).toMatch(/expression: syntax error/);
    expect(mergeRulesProblem({ type: 'rules', rules: [{ rule: 'require_agent_review' }] }, { inherit: true })).toMatch(
      /not supported \(Quire has no agent reviews\)/,
    );
    expect(mergeRulesProblem({ type: 'none', rules: [] }, { inherit: true })).toMatch(/mergeRules.rules: is not a property/);
  });

  it('a space inherits its organization unless it sets its own', () => {
    const org = { type: 'rules' as const, rules: [{ rule: 'require_at_least_one_review' as const }] };
    expect(effectiveMergeRules(null, org)).toBe(org);
    expect(effectiveMergeRules({ type: 'inherit' }, org)).toBe(org);
    expect(effectiveMergeRules({ type: 'none' }, org)).toEqual({ type: 'none' });
  });
});
