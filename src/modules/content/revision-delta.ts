import type { RevisionType } from './revision.entity';
import type { DraftFile, DraftPage } from './revision-writer';

/** A new revision described by what differs from `base`. */
export interface RevisionDelta {
  spaceId: string;
  /** The revision the new one is described against (the space's active revision for a merge). */
  base: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  /** Pages added or changed, whole rows; `markdown` set where the body is new (else `documentId` is kept). */
  pages: DraftPage[];
  /** Pages of `base` that are not in the new revision. */
  removed: string[];
  /** Files added. */
  files: DraftFile[];
}
