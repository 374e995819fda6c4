import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ContentRepository } from '../content/content.repository';
import type { RevisionFile } from '../content/revision-file.entity';
import type { RevisionType } from '../content/revision.entity';
import { DraftFile, DraftPage, RevisionDraft, RevisionWriter } from '../content/revision-writer';
import type { TreePage } from './authoring/tree-editor';

/** A revision read for editing or merging: its pages with their bodies, files, reusable contents and variables. */
export interface LoadedRevision {
  id: string;
  pages: TreePage[];
  files: Omit<RevisionFile, 'revisionId'>[];
  reusableContents: { reusableContentId: string; title: string; documentId: string | null }[];
  variables: Record<string, string | number | boolean>;
}

export interface NewRevision {
  spaceId: string;
  parents: string[];
  type: RevisionType;
  createdBy: string | null;
  pages: TreePage[];
  /** Pages whose body may differ from the document they carry: their markdown is stored (hashed) again. */
  dirty: ReadonlySet<string>;
  files: DraftFile[];
  reusableContents: LoadedRevision['reusableContents'];
  variables: LoadedRevision['variables'];
}

/** Reads revisions whole, and writes new ones through the content module's writer, in the caller's transaction. */
@Injectable()
export class ChangeRequestRevisions {
  constructor(
    private readonly content: ContentRepository,
    private readonly writer: RevisionWriter,
  ) {}

  async load(spaceId: string, revisionId: string, em: EntityManager): Promise<LoadedRevision> {
    const revision = await this.content.findRevision(spaceId, revisionId, em);
    if (!revision) throw new Error(`revision ${revisionId} is not in space ${spaceId}`);
    // One connection per transaction: its queries run one after the other.
    const pages = await this.content.pages(revisionId, em);
    const files = await this.content.files(revisionId, em);
    const reusable = await this.content.reusableContents(revisionId, em);
    return {
      id: revisionId,
      pages: pages.map(({ revisionId: _r, path: _p, ...page }) => page),
      files: files.map(({ revisionId: _r, ...file }) => file),
      reusableContents: reusable.map(({ revisionId: _r, ...content }) => content),
      variables: revision.variables,
    };
  }

  /** A revision drafted by another module's builder (website import). */
  async writeDraft(draft: RevisionDraft, em: EntityManager): Promise<string> {
    return (await this.writer.write(draft, em)).id;
  }

  async write(draft: NewRevision, em: EntityManager): Promise<string> {
    const pages: DraftPage[] = draft.pages.map(({ markdown, ...page }) => (draft.dirty.has(page.pageId) ? { ...page, markdown: markdown ?? '' } : page));
    const revision = await this.writer.write(
      {
        spaceId: draft.spaceId,
        parents: draft.parents,
        type: draft.type,
        createdBy: draft.createdBy,
        pages,
        files: draft.files,
        reusableContents: draft.reusableContents,
        variables: draft.variables,
      },
      em,
    );
    return revision.id;
  }
}
