import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

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
  type: string;

  @Column('text', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
