import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import type { PdfRenderStatus } from './change-request-pdf-render.entity';
import { ChangeRequest } from '../change-request.entity';

/** What a PDF shows: the change request, the revision it pins, and all pages, a page with its sub-pages, or one page. */
export interface PdfRenderKey {
  changeRequestId: string;
  revisionId: string;
  /** '' for the whole change request. */
  pageId: string;
  onlyPage: boolean;
}

export interface PdfRenderState {
  id: string;
  status: PdfRenderStatus;
  error: string | null;
}

export interface PdfRenderRow extends PdfRenderKey, PdfRenderState {}

/** Queries of `change_request_pdf_renders`. */
@Injectable()
export class PdfRendersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the revision has the page (a render of one page needs it). */
  async hasPage(revisionId: string, pageId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM revision_pages WHERE revision_id = $1 AND page_id = $2`, [revisionId, pageId]);
    return rows.length > 0;
  }

  /** The change request a render is of, by id (the job has no space to scope it by). */
  changeRequest(id: string): Promise<ChangeRequest | null> {
    return this.dataSource.manager.findOneBy(ChangeRequest, { id });
  }

  /** Inserts a pending render for the key unless one exists; `created` tells which. */
  async findOrCreate(key: PdfRenderKey, manager: EntityManager): Promise<{ render: PdfRenderState; created: boolean }> {
    const inserted = (await manager.query(
      `INSERT INTO change_request_pdf_renders (id, change_request_id, revision_id, page_id, only_page, status)
       VALUES ($1, $2, $3, $4, $5, 'pending')
       ON CONFLICT ON CONSTRAINT change_request_pdf_renders_key DO NOTHING
       RETURNING id, status, error`,
      [newId(), key.changeRequestId, key.revisionId, key.pageId, key.onlyPage],
    )) as PdfRenderState[];
    if (inserted.length) return { render: inserted[0], created: true };
    const [existing] = (await manager.query(
      `SELECT id, status, error FROM change_request_pdf_renders
       WHERE change_request_id = $1 AND revision_id = $2 AND page_id = $3 AND only_page = $4`,
      [key.changeRequestId, key.revisionId, key.pageId, key.onlyPage],
    )) as PdfRenderState[];
    return { render: existing, created: false };
  }

  /** A failed render back to pending (true when it was failed). */
  async retry(id: string, manager: EntityManager): Promise<boolean> {
    const [, count] = (await manager.query(
      `UPDATE change_request_pdf_renders SET status = 'pending', error = NULL, finished_at = NULL, created_at = now() WHERE id = $1 AND status = 'failed'`,
      [id],
    )) as [unknown, number];
    return count > 0;
  }

  async state(id: string): Promise<PdfRenderState | null> {
    const [row] = (await this.dataSource.query(`SELECT id, status, error FROM change_request_pdf_renders WHERE id = $1`, [id])) as PdfRenderState[];
    return row ?? null;
  }

  async find(id: string): Promise<PdfRenderRow | null> {
    const [row] = (await this.dataSource.query(
      `SELECT id, status, error, change_request_id AS "changeRequestId", revision_id AS "revisionId", page_id AS "pageId", only_page AS "onlyPage"
       FROM change_request_pdf_renders WHERE id = $1`,
      [id],
    )) as PdfRenderRow[];
    return row ?? null;
  }

  async data(id: string): Promise<Buffer | null> {
    const [row] = (await this.dataSource.query(`SELECT data FROM change_request_pdf_renders WHERE id = $1 AND status = 'ready'`, [id])) as { data: Buffer }[];
    return row?.data ?? null;
  }

  /** Stores the outcome of a render still pending (a second run of the job changes nothing). */
  async finish(id: string, outcome: { data: Buffer } | { error: string }): Promise<boolean> {
    const [, count] = (await this.dataSource.query(
      `UPDATE change_request_pdf_renders SET status = $2, data = $3, error = $4, finished_at = now() WHERE id = $1 AND status = 'pending'`,
      'data' in outcome ? [id, 'ready', outcome.data, null] : [id, 'failed', null, outcome.error],
    )) as [unknown, number];
    return count > 0;
  }

  /**
   * Deletes, in batches, renders made before `before` and pending ones started before `staleBefore`
   * (their job is gone: the next fetch queues a new render).
   */
  async purge(before: Date, staleBefore: Date, batch = 500): Promise<number> {
    const [, count] = (await this.dataSource.query(
      `DELETE FROM change_request_pdf_renders WHERE id IN (
         SELECT id FROM change_request_pdf_renders
         WHERE created_at < $1 OR (status = 'pending' AND created_at < $2) LIMIT $3)`,
      [before, staleBefore, batch],
    )) as [unknown, number];
    return count;
  }
}
