import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OpenApiProcessingState } from './openapi-spec-version.entity';
import type { OpenApiProcessingError } from './openapi-spec-content.entity';

export const OPENAPI_SPEC_VISIBILITIES = ['private', 'public'] as const;
export type OpenApiSpecVisibility = (typeof OPENAPI_SPEC_VISIBILITIES)[number];

/** An OpenAPI specification of an organization, by slug; its content lives in its versions. */
@Entity('openapi_specs')
export class OpenApiSpec {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  slug: string;

  /** Where the spec is fetched from; null for a spec given as text. */
  @Column('text', { nullable: true })
  sourceUrl: string | null;

  @Column('text', { default: 'private' })
  visibility: OpenApiSpecVisibility;

  /** The newest version; null only between the insert of the spec and of its first version. */
  @Column('text', { nullable: true })
  lastVersionId: string | null;

  /** When a source was last fetched and parsed successfully (identical content included). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastProcessedAt: Date | null;

  /** The state of the last processing (`pending` only inside the transaction that creates the spec). */
  @Column('text', { default: 'pending' })
  processingState: OpenApiProcessingState;

  /**
   * The problems the last processing found (the latest version's content's): the first
   * MAX_STORED_PROBLEMS, and how many in all. A valid content empties them.
   */
  @Column('jsonb', { default: () => "'[]'" })
  lastProcessedErrors: OpenApiProcessingError[];

  @Column('integer', { default: 0 })
  lastProcessedErrorCount: number;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
