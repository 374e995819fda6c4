import { trimChar, trimEndChar } from '../../common/text/trim';

/**
 * The kept order of one level of a site's structure (the site spaces of a section or of the root;
 * the sections of a group; the root's sections and groups), and where a move puts an item. Pure.
 */
export interface LevelItem {
  type: string;
  id: string;
}

const same = (a: LevelItem, b: LevelItem) => a.type === b.type && a.id === b.id;

/**
 * The level's new order once `moving` is placed before `before` (or after `after`; at the end with
 * neither), or null when the pointer is not a sibling in this level (or is the item itself).
 */
export function reorder<T extends LevelItem>(level: T[], moving: T, position: { before?: LevelItem; after?: LevelItem } = {}): T[] | null {
  const rest = level.filter((item) => !same(item, moving));
  const pointer = position.before ?? position.after;
  if (!pointer) return [...rest, moving];
  if (same(pointer, moving)) return null;
  const index = rest.findIndex((item) => same(item, pointer));
  if (index < 0) return null;
  const at = position.before ? index : index + 1;
  return [...rest.slice(0, at), moving, ...rest.slice(at)];
}

/** A path made from a title: lower case letters, digits and dashes, at most 90 characters (room for a suffix), never empty. */
export function slugOf(title: string, fallback: string): string {
  const slug = trimEndChar(
    trimChar(
      title
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-'),
      '-',
    ).slice(0, 90),
    '-',
  );
  return slug || fallback;
}

/** `base`, or `base-2`, `base-3`… : the first one not in `taken`. */
export function uniquePath(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
