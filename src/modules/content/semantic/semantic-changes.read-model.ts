import type { SemanticChange, SemanticPage } from './semantic-changes';

/** The changes shown (at most `limit`), how many were left out, and the parents that moved pages left and joined. */
export interface SemanticChangesView {
  before: string | null;
  after: string;
  changes: SemanticChange[];
  more: number;
  parentsBefore: Map<string, SemanticPage>;
  parentsAfter: Map<string, SemanticPage>;
}

/** Where a file of a revision downloads (signed for readers). */
export type RevisionFileUrl = (revisionId: string, fileId: string) => string;
