import type { SpaceAction } from '../access/access.policy';
import type { ChangeRequest, ChangeRequestStatus } from './change-request.entity';
import type { Space } from '../space-model/space.entity';

type SpaceCounters = Pick<Space, 'changeRequestsCount' | 'openChangeRequests' | 'draftChangeRequests'>;

/**
 * What each change-request action needs on the space. Reading (the change request, its content, its
 * PDF) is `view`; creating one and changing it (subject, status, content, update from main, import)
 * is `edit`, which a locked space turns off; merging is `merge` (reviewers; off while locked).
 */
export const CHANGE_REQUEST_POLICY = {
  read: 'view',
  write: 'edit',
  merge: 'merge',
} as const satisfies Record<string, SpaceAction>;

/** Merged and archived change requests take no content change, update or merge (409). */
export const acceptsChanges = (cr: Pick<ChangeRequest, 'status'>): boolean => cr.status === 'draft' || cr.status === 'open';

/** How the space's counters move when a change request goes from `from` (undefined: created) to `to`. */
export function counterDelta(from: ChangeRequestStatus | undefined, to: ChangeRequestStatus): Partial<SpaceCounters> {
  const delta: Partial<SpaceCounters> = { changeRequestsCount: from === undefined ? 1 : 0, openChangeRequests: 0, draftChangeRequests: 0 };
  const move = (status: ChangeRequestStatus | undefined, by: number) => {
    if (status === 'open') delta.openChangeRequests = (delta.openChangeRequests ?? 0) + by;
    if (status === 'draft') delta.draftChangeRequests = (delta.draftChangeRequests ?? 0) + by;
  };
  move(from, -1);
  move(to, +1);
  return delta;
}
