import { MAX_EDITS, mergeLines } from '../../src/modules/change-requests/merge/line-merge';

/** Distinct lines, so every diff has one alignment and the expected merge is unambiguous. */
const lines = (n: number, tag = 'l') => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe('mergeLines (line-level three-way merge)', () => {
  const base = lines(40);

  it('applies changes of both sides to different lines', () => {
    const ours = [...base];
    ours[3] = 'ours 3';
    ours.splice(10, 0, 'ours inserted');
    const theirs = [...base];
    theirs.splice(30, 2);
    theirs[20] = 'theirs 20';
    const expected = [...base];
    expected[3] = 'ours 3';
    expected[20] = 'theirs 20';
    expected.splice(30, 2);
    expected.splice(10, 0, 'ours inserted');
    expect(mergeLines(ours, base, theirs)).toEqual(expected);
  });

  it('takes the same change made on both sides once', () => {
    const both = [...base];
    both[7] = 'same';
    const theirs = [...both];
    theirs[25] = 'theirs 25';
    const expected = [...both];
    expected[25] = 'theirs 25';
    expect(mergeLines(both, base, theirs)).toEqual(expected);
  });

  it('is a conflict when both sides change the same lines differently, or insert different lines at one place', () => {
    const ours = [...base];
    ours[5] = 'ours 5';
    const theirs = [...base];
    theirs[5] = 'theirs 5';
    expect(mergeLines(ours, base, theirs)).toBeNull();
    const ours2 = [...base];
    ours2.splice(12, 0, 'a');
    const theirs2 = [...base];
    theirs2.splice(12, 0, 'b');
    expect(mergeLines(ours2, base, theirs2)).toBeNull();
  });

  it(`is a conflict when a side changed more than ${MAX_EDITS} lines of a page the other side changed too (too different to merge line by line)`, () => {
    const page = lines(2 * MAX_EDITS);
    const ours = page.map((line, i) => (i < MAX_EDITS ? `rewritten ${i}` : line));
    const theirs = [...page];
    theirs[page.length - 1] = 'theirs last';
    expect(mergeLines(ours, page, theirs)).toBeNull();
    // Within the limit the same shape merges.
    const smaller = page.map((line, i) => (i < MAX_EDITS / 4 ? `rewritten ${i}` : line));
    expect(mergeLines(smaller, page, theirs)).toEqual([...smaller.slice(0, -1), 'theirs last']);
  });

  it('costs little on inputs built to defeat line diffs, at any size (an LCS-based diff3 took 2.7 s at 2,000 lines, minutes at 8,000)', () => {
    for (const n of [2_000, 8_000, 300_000]) {
      const base = Array.from({ length: n }, (_, i) => (i % 2 ? 'a' : 'b'));
      const ours = Array.from({ length: n }, (_, i) => (i % 3 ? 'a' : 'b'));
      const theirs = Array.from({ length: n }, (_, i) => (i % 5 ? 'b' : 'a'));
      const started = performance.now();
      mergeLines(ours, base, theirs);
      // About 0.25 s here at worst; a loose bound for a loaded machine, far below the old cost.
      const ms = performance.now() - started;
      if (ms >= 2_000) throw new Error(`${n} lines took ${Math.round(ms)} ms`);
    }
  });
});
