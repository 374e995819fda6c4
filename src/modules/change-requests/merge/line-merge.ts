import { diffArrays } from 'diff';

/**
 * The line-level three-way merge of a page body, with a cost that stays linear in its size.
 *
 * Each side is diffed against the base with Myers' algorithm (`diff`'s `diffArrays`), whose cost is
 * O((N + M) · D) for D edits, with about D² diagonal visits; D is capped at `MAX_EDITS` and so that
 * (N + M) · D stays under `EDIT_BUDGET` line comparisons, so no input costs more than that (an LCS-based diff3 took 2.7 s for 2,000 lines built to defeat
 * it, and minutes at the body limit). A side that changed more than the cap allows is "too different
 * to merge line by line": the page is a conflict, as when both sides changed the same lines.
 *
 * Regions follow diff3: the changes of both sides are laid on the base; changes whose base ranges
 * overlap or touch form one region; a region changed by one side takes that side; changed by both,
 * it takes their common text if they made the same change, else it is a conflict.
 */
export const EDIT_BUDGET = 20_000_000;
/** Myers visits about D² diagonals, each an allocation: D is also capped on its own. */
export const MAX_EDITS = 600;

/** A change of one side: base lines [oStart, oStart + oLength) became the side's lines [start, start + length). */
interface Hunk {
  side: 0 | 1;
  oStart: number;
  oLength: number;
  start: number;
  length: number;
}

/** The hunks that turn `base` into `side`, or null when they would cost more than the budget. */
function hunks(base: string[], side: string[], which: 0 | 1): Hunk[] | null {
  // Common ends cost nothing to Myers either, but trimming them keeps the edit cap about the middle.
  let head = 0;
  while (head < base.length && head < side.length && base[head] === side[head]) head++;
  let tail = 0;
  while (tail < base.length - head && tail < side.length - head && base[base.length - 1 - tail] === side[side.length - 1 - tail]) tail++;
  const oldMiddle = base.slice(head, base.length - tail);
  const newMiddle = side.slice(head, side.length - tail);
  if (oldMiddle.length === 0 && newMiddle.length === 0) return [];
  if (oldMiddle.length === 0 || newMiddle.length === 0)
    return [{ side: which, oStart: head, oLength: oldMiddle.length, start: head, length: newMiddle.length }];
  const maxEditLength = Math.max(1, Math.min(MAX_EDITS, Math.floor(EDIT_BUDGET / (oldMiddle.length + newMiddle.length))));
  const changes = diffArrays(oldMiddle, newMiddle, { maxEditLength });
  if (!changes) return null;
  const out: Hunk[] = [];
  let o = head;
  let s = head;
  let open: Hunk | null = null;
  for (const change of changes) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      if (open) out.push(open);
      open = null;
      o += count;
      s += count;
      continue;
    }
    open ??= { side: which, oStart: o, oLength: 0, start: s, length: 0 };
    if (change.removed) {
      open.oLength += count;
      o += count;
    } else {
      open.length += count;
      s += count;
    }
  }
  if (open) out.push(open);
  return out;
}

const sameLines = (a: string[], aStart: number, aEnd: number, b: string[], bStart: number, bEnd: number): boolean => {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
};

/** The merged lines, or null for a conflict (or a side too different from the base to merge). */
export function mergeLines(ours: string[], base: string[], theirs: string[]): string[] | null {
  const mine = hunks(base, ours, 0);
  const others = hunks(base, theirs, 1);
  if (!mine || !others) return null;
  const sides = [ours, theirs];
  const all = [...mine, ...others].sort((x, y) => x.oStart - y.oStart || x.side - y.side);
  const out: string[] = [];
  let offset = 0;
  for (let i = 0; i < all.length;) {
    const first = all[i];
    const regionStart = first.oStart;
    let regionEnd = first.oStart + first.oLength;
    const region = [first];
    for (i++; i < all.length && all[i].oStart <= regionEnd; i++) {
      region.push(all[i]);
      regionEnd = Math.max(regionEnd, all[i].oStart + all[i].oLength);
    }
    for (let k = offset; k < regionStart; k++) out.push(base[k]);
    if (region.every((hunk) => hunk.side === first.side)) {
      // One side changed this stretch: its lines, from its first hunk's start to its last hunk's end.
      const last = region[region.length - 1];
      const lines = sides[first.side];
      const end = last.start + last.length + (regionEnd - (last.oStart + last.oLength));
      for (let k = first.start; k < end; k++) out.push(lines[k]);
    } else {
      // Both sides: each side's extent over the region; the same text on both is no conflict.
      const extent = (side: 0 | 1): [number, number] => {
        const own = region.filter((hunk) => hunk.side === side);
        const lo = own[0];
        const hi = own[own.length - 1];
        return [lo.start - (lo.oStart - regionStart), hi.start + hi.length + (regionEnd - (hi.oStart + hi.oLength))];
      };
      const [aStart, aEnd] = extent(0);
      const [bStart, bEnd] = extent(1);
      if (!sameLines(ours, aStart, aEnd, theirs, bStart, bEnd)) return null;
      for (let k = aStart; k < aEnd; k++) out.push(ours[k]);
    }
    offset = regionEnd;
  }
  for (let k = offset; k < base.length; k++) out.push(base[k]);
  return out;
}
