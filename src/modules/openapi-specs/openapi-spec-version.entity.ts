import { Column, Entity, PrimaryColumn } from 'typeorm';

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

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
