import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigint = { to: (value: number) => value, from: (value: string) => Number(value) };

/**
 * A file in one revision; its bytes are a shared blob. The file id is stable across revisions.
 * Read-only: `revision_files` is the view that resolves revision layers; writers insert into `revision_file_rows`.
 */
@Entity('revision_files', { synchronize: false })
export class RevisionFile {
  @PrimaryColumn('text')
  revisionId: string;

  @PrimaryColumn('text')
  fileId: string;

  @Column('text')
  name: string;

  @Column('text')
  contentType: string;

  @Column('bigint', { transformer: bigint })
  size: number;

  @Column('integer', { nullable: true })
  width: number | null;

  @Column('integer', { nullable: true })
  height: number | null;

  @Column('text')
  blobId: string;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
