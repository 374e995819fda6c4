import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ContentRepository } from '../content/content.repository';
import type { RevisionFile } from '../content/revision-file.entity';
import type { RevisionType } from '../content/revision.entity';
import { DraftFile, DraftPage, RevisionDraft, RevisionWriter } from '../content/revision-writer';
import { RevisionDeltaWriter } from '../content/revision-delta-writer';
import type { TreePage } from './authoring/tree-editor';
import { ChangeRequestsRepository } from './change-requests.repository';

/** A revision read for editing or merging: its pages with their bodies, files, reusable contents and variables. */
export interface LoadedRevision {
  id: string;
  pages: TreePage[];
  files: Omit<RevisionFile, 'revisionId'>[];
  reusableContents: { reusableContentId: string; title: string; documentId: string | null }[];
  variables: Record<string, string | number | boolean>;
}

/** A new revision and, when it was written as a delta of its base, what differs (for the search index). */
export interface WrittenRevision {
  id: string;
  delta?: { changed: string[]; removed: string[] };
}

/** A new revision described by what differs from `base`: an authoring batch's or a merge's result. */
export interface RevisionChanges {
  spaceId: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  /** The revision the new one is written as a delta of. */
  base: string;
  /** Pages whose row differs from `base`'s, whole (their markdown, when set, is stored again). */
  changed: TreePage[];
  /** Pages of `base` that are gone. */
  removed: string[];
  /** Files not in `base`. */
  newFiles: DraftFile[];
}

/** Reads revisions whole, and writes new ones through the content module's writer, in the caller's transaction. */
@Injectable()
export class ChangeRequestRevisions {
  constructor(
    private readonly content: ContentRepository,
    private readonly writer: RevisionWriter,
    private readonly deltaWriter: RevisionDeltaWriter,
    private readonly rows: ChangeRequestsRepository,
  ) {}

  async load(spaceId: string, revisionId: string, em: EntityManager): Promise<LoadedRevision> {
    const revision = await this.content.findRevision(spaceId, revisionId, em);
    if (!revision) throw new Error(`revision ${revisionId} is not in space ${spaceId}`);
    // One connection per transaction: its queries run one after the other.
    // Tree rows only: bodies are loaded where a change needs them (`withBodies`).
    const pages = await this.rows.treeRows(revisionId, em);
    const files = await this.content.files(revisionId, em);
    const reusable = await this.content.reusableContents(revisionId, em);
    return {
      id: revisionId,
      pages,
      files: files.map(({ revisionId: _r, ...file }) => file),
      reusableContents: reusable.map(({ revisionId: _r, ...content }) => content),
      variables: revision.variables,
    };
  }

  /** A revision drafted by another module's builder (website import), for a change request: never activated by this write. */
  async writeDraft(draft: RevisionDraft, em: EntityManager): Promise<string> {
    return (await this.writer.write(draft, em, { activated: false })).id;
  }

  /** Sets `markdown` on the given pages from their documents. */
  async withBodies(pages: TreePage[], em: EntityManager): Promise<void> {
    const bodies = await this.content.bodies(
      pages.map((page) => page.documentId).filter((id): id is string => !!id),
      em,
    );
    for (const page of pages) page.markdown = page.documentId ? (bodies.get(page.documentId) ?? '') : '';
  }

  /**
   * Writes the revision as a delta of `base`: cost follows the change (a layer over the base's full
   * revision, or full past the layer bound), and what differs goes with it for the search index.
   */
  async writeChanges(changes: RevisionChanges, em: EntityManager): Promise<WrittenRevision> {
    const pages: DraftPage[] = changes.changed.map(({ markdown, ...page }) =>
      typeof markdown === 'string' ? { ...page, markdown } : { ...page, documentId: page.documentId ?? null },
    );
    const written = await this.deltaWriter.write(
      {
        spaceId: changes.spaceId,
        base: changes.base,
        parents: changes.parents,
        type: changes.type,
        createdBy: changes.createdBy,
        pages,
        removed: changes.removed,
        files: changes.newFiles,
      },
      em,
    );
    return { id: written.revision.id, delta: written.delta };
  }
}
