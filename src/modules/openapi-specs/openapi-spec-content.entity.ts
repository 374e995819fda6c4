import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Parsed files of a spec: path (relative to the entry file's folder) → parsed document; the entry file first. */
export type OpenApiFilesystem = Record<string, unknown>;

/** The content of one or more versions, stored once per distinct content. */
@Entity('openapi_spec_contents')
export class OpenApiSpecContent {
  /** SHA-256 over the entry text and every referenced file (path and text). */
  @PrimaryColumn('text')
  hash: string;

  @Column('text')
  format: 'json' | 'yaml';

  /** The entry file's text, exactly as submitted or fetched. */
  @Column('text', { select: false })
  rawText: string;

  @Column('jsonb', { select: false })
  filesystem: OpenApiFilesystem;

  /** Bytes of every file together. */
  @Column('integer')
  size: number;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
