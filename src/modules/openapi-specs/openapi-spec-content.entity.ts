import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A problem kept with a spec that parses but does not validate: the public `OpenAPIErrorObject`. */
export interface OpenApiProcessingError {
  message: string;
  code?: string;
}

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

  /**
   * What validating this content found (broken `$ref`s, validator errors), at most
   * MAX_STORED_PROBLEMS; empty for a valid spec. A content never changes, so neither do these: a
   * content submitted again is not validated again.
   */
  @Column('jsonb')
  validationErrors: OpenApiProcessingError[];

  /** How many problems there were in all (`validationErrors` holds the first ones). */
  @Column('integer')
  validationErrorCount: number;

  /** Bytes of every file together. */
  @Column('integer')
  size: number;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
