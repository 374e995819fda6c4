import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config';
import { JobsService } from '../../../jobs/jobs.service';
import { SpaceAccess } from '../../access/space-access.service';
import { ContentRepository } from '../../content/content.repository';
import { contentError } from '../../content/content.errors';
import { FILE_REF, markdownLinks } from '../../content/markdown/markdown';
import type { PageWithBody } from '../../content/content.read-model';
import { ChangeRequest } from '../change-request.entity';
import { changeRequestError } from '../change-request.errors';
import { ChangeRequestsService } from '../change-requests.service';
import { PdfDownloadQueryDto, PdfQueryDto } from '../dto/change-request.dto';
import { PdfPage, renderPdf } from './pdf-renderer';
import { PdfRenderKey, PdfRendersRepository, PdfRenderState } from './pdf-renders.repository';
import { RENDER_PDF } from './pdf-jobs';

/** What fetching the url gives: the PDF, or `pending` when the render job has not finished within the wait. */
export type PdfDownload = { status: 'ready'; filename: string; data: Buffer } | { status: 'pending' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The PDF of a change request (`getChangeRequestPDF`). The answer is a URL on Quire's own origin,
 * checked with the caller's bearer token like every read of the space (as file downloads are): no
 * signed secret to leak or expire. The URL pins the change request's head revision at the time it
 * was given, so it always prints the same content.
 *
 * Rendering leaves the request: `url` records a render (one per change request, revision, page,
 * only; reused while kept) and queues `change-requests.render-pdf`, which renders with pdfkit and
 * stores the bytes. Fetching the url waits up to PDF_RENDER_WAIT_MS for the render (polling its row),
 * then answers the PDF, 422 if it failed, or 202 `{status: "pending"}`. A url whose render was
 * purged queues a new one when fetched.
 */
@Injectable()
export class ChangeRequestPdfService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly changeRequests: ChangeRequestsService,
    private readonly content: ContentRepository,
    private readonly renders: PdfRendersRepository,
    private readonly jobs: JobsService,
    private readonly config: AppConfig,
  ) {}

  async url(access: SpaceAccess, idOrNumber: string, query: PdfQueryDto): Promise<{ url: string }> {
    if (query.only && !query.page) throw changeRequestError('change_request.pdf_page_required', 'page: is required with only=true');
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    if (query.page) await this.requirePage(cr.revision, query.page);
    // A failed render is tried again when a url is asked for anew.
    await this.request(this.keyOf(cr, cr.revision, query), true);
    const params = new URLSearchParams({ revision: cr.revision });
    if (query.page) params.set('page', query.page);
    if (query.only) params.set('only', 'true');
    return { url: this.config.apiUrl(`/v1/spaces/${cr.spaceId}/change-requests/${cr.id}/pdf/download?${params.toString()}`) };
  }

  async download(access: SpaceAccess, idOrNumber: string, query: PdfDownloadQueryDto): Promise<PdfDownload> {
    if (query.only && !query.page) throw changeRequestError('change_request.pdf_page_required', 'page: is required with only=true');
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    // Any revision of the space can be printed, but only through a change request it belongs to: its head now or when the URL was given.
    const revision = await this.content.findRevision(access.space.id, query.revision);
    if (!revision) throw contentError('content.revision_not_found', `Revision ${query.revision} not found in space ${access.space.id}`);
    if (query.page) await this.requirePage(revision.id, query.page);
    let render = await this.request(this.keyOf(cr, revision.id, query), false);
    const deadline = Date.now() + this.config.pdfRenderWaitMs;
    for (let delay = 50; render.status === 'pending' && Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      render = (await this.renders.state(render.id)) ?? render;
    }
    if (render.status === 'failed') throw changeRequestError('change_request.pdf_failed', `The PDF could not be rendered: ${render.error ?? 'unknown error'}`);
    if (render.status === 'pending') return { status: 'pending' };
    const data = await this.renders.data(render.id);
    // Purged between the two reads: the next fetch queues it again.
    if (!data) return { status: 'pending' };
    return { status: 'ready', filename: `change-request-${cr.number}.pdf`, data };
  }

  /** The job: renders a pending render and stores the bytes (a render already finished is left alone). */
  async renderJob(renderId: string, lastAttempt: boolean): Promise<void> {
    const render = await this.renders.find(renderId);
    if (!render || render.status !== 'pending') return;
    let data: Buffer;
    try {
      data = await this.render(render);
    } catch (error) {
      // A missing revision or page will not come back: fail now. Anything else is retried, and recorded on the last attempt.
      if (error instanceof DomainError || lastAttempt) {
        await this.renders.finish(renderId, { error: error instanceof Error ? error.message : String(error) });
        return;
      }
      throw error;
    }
    await this.renders.finish(renderId, { data });
  }

  private keyOf(cr: ChangeRequest, revisionId: string, query: PdfQueryDto): PdfRenderKey {
    return { changeRequestId: cr.id, revisionId, pageId: query.page ?? '', onlyPage: query.only };
  }

  /** The render for the key, created (and its job queued, in the same transaction) when there is none; a failed one queued again if `retryFailed`. */
  private async request(key: PdfRenderKey, retryFailed: boolean): Promise<PdfRenderState> {
    const { render, queued } = await this.dataSource.transaction(async (em) => {
      const { render, created } = await this.renders.findOrCreate(key, em);
      if (created || (retryFailed && render.status === 'failed' && (await this.renders.retry(render.id, em)))) {
        await this.jobs.send(RENDER_PDF, { renderId: render.id }, { manager: em });
        return { render: { ...render, status: 'pending' as const, error: null }, queued: true };
      }
      return { render, queued: false };
    });
    // Committed: a local worker starts it now rather than at its next poll.
    if (queued) this.jobs.wake(RENDER_PDF);
    return render;
  }

  private async requirePage(revisionId: string, pageId: string): Promise<void> {
    if (!(await this.renders.hasPage(revisionId, pageId))) throw contentError('content.page_not_found', `Page ${pageId} not found`);
  }

  private async render(key: PdfRenderKey): Promise<Buffer> {
    const cr = await this.renders.changeRequest(key.changeRequestId);
    if (!cr) throw changeRequestError('change_request.not_found', `Change request ${key.changeRequestId} not found`);
    const revision = await this.content.findRevision(cr.spaceId, key.revisionId);
    if (!revision) throw contentError('content.revision_not_found', `Revision ${key.revisionId} not found in space ${cr.spaceId}`);
    const pages = await this.selectPages(revision.id, key);
    const files = new Map((await this.content.files(revision.id)).map((file) => [file.fileId, file]));
    const wanted = new Set(pages.flatMap((page) => markdownLinks(page.markdown).flatMap((link) => (link.image ? [FILE_REF.exec(link.href)?.[1] ?? ''] : []))));
    const images = new Map<string, { data: Buffer; contentType: string }>();
    for (const fileId of wanted) {
      const file = files.get(fileId);
      const data = file ? await this.content.blobData(file.blobId) : null;
      if (file && data) images.set(fileId, { data, contentType: file.contentType });
    }
    const title = cr.subject || `Change request #${cr.number}`;
    return renderPdf(title, pages, (fileId) => images.get(fileId));
  }

  /** The pages to print in tree order (depth first): all, one page and its sub-pages, or only one page. */
  private async selectPages(revisionId: string, key: PdfRenderKey): Promise<PdfPage[]> {
    const all = await this.content.pages(revisionId);
    const children = new Map<string | null, PageWithBody[]>();
    for (const page of all) children.set(page.parentId, [...(children.get(page.parentId) ?? []), page]);
    for (const list of children.values()) list.sort((a, b) => a.position - b.position);
    const ordered: PdfPage[] = [];
    const walk = (page: PageWithBody, depth: number, deep: boolean) => {
      if (page.kind !== 'link') ordered.push({ title: page.title, depth, markdown: page.markdown ?? '' });
      if (deep) for (const child of children.get(page.pageId) ?? []) walk(child, depth + 1, true);
    };
    if (key.pageId) {
      const start = all.find((page) => page.pageId === key.pageId);
      if (!start) throw contentError('content.page_not_found', `Page ${key.pageId} not found`);
      walk(start, 0, !key.onlyPage);
    } else for (const root of children.get(null) ?? []) walk(root, 0, true);
    return ordered;
  }
}
