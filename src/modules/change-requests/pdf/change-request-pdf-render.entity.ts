import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const PDF_RENDER_STATUSES = ['pending', 'ready', 'failed'] as const;
export type PdfRenderStatus = (typeof PDF_RENDER_STATUSES)[number];

/** One PDF of a change request, rendered by the `change-requests.render-pdf` job (migration 1800000079000). */
@Entity('change_request_pdf_renders')
export class ChangeRequestPdfRender {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'change_request_id' })
  changeRequestId: string;

  @Column('text', { name: 'revision_id' })
  revisionId: string;

  /** '' for the whole change request. */
  @Column('text', { name: 'page_id' })
  pageId: string;

  @Column('boolean', { name: 'only_page' })
  onlyPage: boolean;

  @Column('text')
  status: PdfRenderStatus;

  @Column('bytea', { nullable: true })
  data: Buffer | null;

  @Column('text', { nullable: true })
  error: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', precision: 3, nullable: true })
  finishedAt: Date | null;
}
