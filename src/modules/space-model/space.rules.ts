import type { SpaceVisibility } from './space.entity';

/**
 * A space's visibility once it sits in `parentId`: `in-collection` means "whoever can access the
 * parent collection", so a space leaving every collection falls back to `private`, the narrowest.
 */
export function visibilityIn(visibility: SpaceVisibility, parentId: string | null): SpaceVisibility {
  return visibility === 'in-collection' && parentId === null ? 'private' : visibility;
}

/** `visibilityIn` as SQL, for writes that move many spaces at once (`column` the visibility, `parent` the new parent). */
export function visibilityInSql(column: string, parent: string): string {
  return `(CASE WHEN ${parent} IS NULL AND ${column} = 'in-collection' THEN 'private' ELSE ${column} END)`;
}
