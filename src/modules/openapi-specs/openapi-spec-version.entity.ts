import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The public `OpenAPISpecProcessingState`: `pending` (submitted, not processed yet), `progress`
 * (being processed), `complete` (processed: parsed and validated, with or without problems).
 * Quire processes a source while its request waits, so a stored version is always `complete`.
 */
export const OPENAPI_PROCESSING_STATES = ['pending', 'progress', 'complete'] as const;
export type OpenApiProcessingState = (typeof OPENAPI_PROCESSING_STATES)[number];

/** One immutable version of a spec: which content, fetched from where, when. */
@Entity('openapi_spec_versions')
export class OpenApiSpecVersion {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  specId: string;

  /** The SHA-256 of the version's content (`openapi_spec_contents.hash`). */
  @Column('text')
  contentHash: string;

  /** The URL the content was fetched from; null for text sources. */
  @Column('text', { nullable: true })
  sourceUrl: string | null;

  /** Its problems are its content's (`openapi_spec_contents.validation_errors`). */
  @Column('text')
  processingState: OpenApiProcessingState;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
