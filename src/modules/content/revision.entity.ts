import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const REVISION_TYPES = ['edits', 'merge', 'rollback', 'update', 'computed'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

/** Metadata of the git commit a revision came from (Git Sync); mutable, so `metadata=false` leaves it out. */
export interface RevisionGit {
  oid: string;
  message: string;
  createdByGitBook: boolean;
  url?: string;
  ref?: string;
}

/** An immutable snapshot of a space's content. Pages, files and the rest hang off it. */
@Entity('revisions')
export class Revision {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  spaceId: string;

  @Column('text', { array: true, default: () => "'{}'" })
  parents: string[];

  @Column('text', { default: 'edits' })
  type: RevisionType;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column('jsonb', { nullable: true })
  git: RevisionGit | null;

  @Column('jsonb', { default: () => "'{}'" })
  variables: Record<string, string | number | boolean>;

  /**
   * The full revision this one is a layer over (it stores only the rows that differ from it, and
   * tombstones); null for a full revision. Internal: never presented.
   */
  @Column('text', { nullable: true })
  baseId: string | null;

  /**
   * For a revision written as a delta (`RevisionDeltaWriter`): the revision it was described
   * against, and the pages (changed, re-pathed, removed) and files (added) whose rows differ from
   * it; it equals that revision on every other key. Null when written otherwise. Internal.
   */
  @Column('text', { nullable: true })
  deltaBaseId: string | null;

  @Column('text', { array: true, nullable: true })
  deltaPageIds: string[] | null;

  @Column('text', { array: true, nullable: true })
  deltaFileIds: string[] | null;
}
