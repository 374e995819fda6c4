import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A named set of target languages for translating an organization's content. */
@Entity('translation_settings')
export class TranslationSettings {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  title: string;

  /** BCP 47 language tags in canonical form, without duplicates, in the order given. */
  @Column('text', { array: true, default: () => "'{}'" })
  languages: string[];

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
