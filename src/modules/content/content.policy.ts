import type { SpaceAction } from '../access/access.policy';

/**
 * What each content action needs on the space. Reading content (revisions, pages, files, links,
 * search) is `view`; changing it (import) is `edit`, which the access model turns off while the
 * space is locked. The space's own `permissions` object already tells clients both.
 */
export const CONTENT_POLICY = {
  read: 'view',
  import: 'edit',
} as const satisfies Record<string, SpaceAction>;
