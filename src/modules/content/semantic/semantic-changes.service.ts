import { Injectable } from '@nestjs/common';
import { semanticChanges } from './semantic-changes';
import type { SemanticChangesView } from './semantic-changes.read-model';
import { SemanticChangesRepository } from './semantic-changes.repository';

/** Semantic changes between two revisions of a space (`getChangeRequestChanges`, `getRevisionSemanticChanges`). */
@Injectable()
export class SemanticChangesService {
  constructor(private readonly rows: SemanticChangesRepository) {}

  /** `before` null: the revision has no parent, so all of `after` is new. */
  async between(before: string | null, after: string, limit: number): Promise<SemanticChangesView> {
    const { pages, files } = await this.rows.differences(before, after);
    const all = semanticChanges(pages, files);
    const changes = all.slice(0, limit);
    const moved = changes.filter((change) => change.type === 'page_moved');
    const ids = (pick: (change: (typeof moved)[number]) => string | null) => [...new Set(moved.map(pick).filter((id): id is string => id !== null))];
    return {
      before,
      after,
      changes,
      more: all.length - changes.length,
      parentsBefore:
        before === null
          ? new Map()
          : await this.rows.pages(
              before,
              ids((change) => change.parentBefore),
            ),
      parentsAfter: await this.rows.pages(
        after,
        ids((change) => change.parentAfter),
      ),
    };
  }
}
