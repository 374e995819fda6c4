import type { Page } from '../../common/pagination/paginate';
import type { User } from '../users/user.entity';
import type { EmailVisibility } from '../users/user.policy';
import type { PageOutcome } from './authoring/tree-editor';
import type { ChangeRequest } from './change-request.entity';
import type { RevisionFile } from '../content/revision-file.entity';

/** What a change request is shown with: the people it names and the space's active revision (for `outdated`). */
export interface ChangeRequestView {
  changeRequest: ChangeRequest;
  organizationId: string;
  activeRevision: string;
  users: Map<string, User>;
  emails: EmailVisibility;
}

export interface ChangeRequestListView extends Omit<ChangeRequestView, 'changeRequest'> {
  page: Page<ChangeRequest>;
}

/** The outcome of a batch of content changes. */
export interface ContentUpdateView {
  view: ChangeRequestView;
  changes: PageOutcome[];
  insertedFiles: RevisionFile[];
}

/** The revision an update from main or a merge produced. */
export interface MergeOutcome {
  revision: string;
  result: 'merge' | 'update';
}
