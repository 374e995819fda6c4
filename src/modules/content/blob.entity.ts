import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Bytes of a file, keyed by their SHA-256: two files with the same bytes share one blob. */
@Entity('blobs')
export class Blob {
  @PrimaryColumn('text')
  id: string;

  @Column('bytea', { select: false })
  data: Buffer;

  @Column('bigint', { transformer: { to: (value: number) => value, from: (value: string) => Number(value) } })
  size: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
