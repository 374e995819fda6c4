import { Column, Entity, PrimaryColumn } from 'typeorm';

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

  @Column('text', { nullable: true })
  createdBy: string | null;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
