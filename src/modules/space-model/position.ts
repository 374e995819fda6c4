import type { ValueTransformer } from 'typeorm';

/**
 * Positions in an organization's kept order of spaces and collections. New items are spaced
 * `POSITION_GAP` apart so that placing an item between two neighbours usually takes the midpoint
 * and writes one row; when two neighbours touch, the organization's items are renumbered first.
 */
export const POSITION_GAP = 1024;

/** `bigint` comes back from `pg` as a string; positions stay well inside Number's exact range. */
export const POSITION_TRANSFORMER: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? value : Number(value)),
};

/**
 * The position for an item placed between `lower` and `upper` (the neighbours' positions; null
 * where there is none), or null when they leave no room and the order must be renumbered.
 */
export function positionBetween(lower: number | null, upper: number | null): number | null {
  if (lower === null && upper === null) return POSITION_GAP;
  if (lower === null) return (upper as number) - POSITION_GAP;
  if (upper === null) return lower + POSITION_GAP;
  if (upper - lower < 2) return null;
  return Math.floor((lower + upper) / 2);
}
