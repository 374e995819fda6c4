import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A section of a site (section 2.10): holds site spaces (its variants), maybe inside a group. */
@Entity('site_sections')
export class SiteSection {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  siteId: string;

  @Column('text', { nullable: true })
  groupId: string | null;

  @Column('text')
  title: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  path: string;

  @Column('text', { nullable: true })
  icon: string | null;

  @Column('text', { nullable: true })
  condition: string | null;

  @Column('boolean', { default: false })
  isDefault: boolean;

  @Column('integer')
  position: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
