import { mergeRefusal, NO_MERGE_RULES } from '../../src/modules/change-requests/reviews/merge-rules';

describe('mergeRefusal', () => {
  const rules = { requiredApprovals: 2, blockOnChangesRequested: true, adminsCanOverride: false };

  it('allows anything without rules', () => {
    expect(mergeRefusal(NO_MERGE_RULES, [{ reviewerId: 'a', status: 'changes-requested', revisionId: 'r1' }], 'r2')).toBeNull();
  });

  it('counts approvals of the current head only', () => {
    const latest = [
      { reviewerId: 'a', status: 'approved' as const, revisionId: 'head' },
      { reviewerId: 'b', status: 'approved' as const, revisionId: 'old' },
    ];
    expect(mergeRefusal(rules, latest, 'head')).toMatch(/requiredApprovals: 2 approval\(s\) of the current revision head needed, 1 given/);
    expect(mergeRefusal(rules, [...latest, { reviewerId: 'c', status: 'approved', revisionId: 'head' }], 'head')).toBeNull();
  });

  it('a request for changes blocks whatever revision it was of, and only when the setting says so', () => {
    const latest = [
      { reviewerId: 'a', status: 'approved' as const, revisionId: 'head' },
      { reviewerId: 'b', status: 'approved' as const, revisionId: 'head' },
      { reviewerId: 'c', status: 'changes-requested' as const, revisionId: 'old' },
    ];
    expect(mergeRefusal(rules, latest, 'head')).toMatch(/blockOnChangesRequested: 1 reviewer\(s\) requested changes \(c\)/);
    expect(mergeRefusal({ ...rules, blockOnChangesRequested: false }, latest, 'head')).toBeNull();
  });
});
