import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { SpaceAccess } from '../../access/space-access.service';
import { ContentRepository } from '../../content/content.repository';
import { contentError } from '../../content/content.errors';
import { FILE_REF, markdownLinks } from '../../content/markdown/markdown';
import type { PageWithBody } from '../../content/content.read-model';
import { changeRequestError } from '../change-request.errors';
import { ChangeRequestsService } from '../change-requests.service';
import { PdfDownloadQueryDto, PdfQueryDto } from '../dto/change-request.dto';
import { PdfPage, renderPdf } from './pdf-renderer';

/**
 * The PDF of a change request (`getChangeRequestPDF`). The answer is a URL on Quire's own origin,
 * checked with the caller's bearer token like every read of the space (as file downloads are): no
 * signed secret to leak or expire. The URL pins the change request's head revision at the time it
 * was given, so it always prints the same content; the PDF is rendered when the URL is fetched.
 */
@Injectable()
export class ChangeRequestPdfService {
  constructor(
    private readonly changeRequests: ChangeRequestsService,
    private readonly content: ContentRepository,
    private readonly config: AppConfig,
  ) {}

  async url(access: SpaceAccess, idOrNumber: string, query: PdfQueryDto): Promise<{ url: string }> {
    if (query.only && !query.page) throw changeRequestError('change_request.pdf_page_required', 'page: is required with only=true');
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    if (query.page) await this.selectPages(cr.revision, query);
    const params = new URLSearchParams({ revision: cr.revision });
    if (query.page) params.set('page', query.page);
    if (query.only) params.set('only', 'true');
    return { url: this.config.apiUrl(`/v1/spaces/${cr.spaceId}/change-requests/${cr.id}/pdf/download?${params.toString()}`) };
  }

  async render(access: SpaceAccess, idOrNumber: string, query: PdfDownloadQueryDto): Promise<{ filename: string; data: Buffer }> {
    if (query.only && !query.page) throw changeRequestError('change_request.pdf_page_required', 'page: is required with only=true');
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    // Any revision of the space can be printed, but only through a change request it belongs to: its head now or when the URL was given.
    const revision = await this.content.findRevision(access.space.id, query.revision);
    if (!revision) throw contentError('content.revision_not_found', `Revision ${query.revision} not found in space ${access.space.id}`);
    const pages = await this.selectPages(revision.id, query);
    const files = new Map((await this.content.files(revision.id)).map((file) => [file.fileId, file]));
    const wanted = new Set(pages.flatMap((page) => markdownLinks(page.markdown).flatMap((link) => (link.image ? [FILE_REF.exec(link.href)?.[1] ?? ''] : []))));
    const images = new Map<string, { data: Buffer; contentType: string }>();
    for (const fileId of wanted) {
      const file = files.get(fileId);
      const data = file ? await this.content.blobData(file.blobId) : null;
      if (file && data) images.set(fileId, { data, contentType: file.contentType });
    }
    const title = cr.subject || `Change request #${cr.number}`;
    const data = await renderPdf(title, pages, (fileId) => images.get(fileId));
    return { filename: `change-request-${cr.number}.pdf`, data };
  }

  /** The pages to print in tree order (depth first): all, one page and its sub-pages, or only one page. */
  private async selectPages(revisionId: string, query: PdfQueryDto): Promise<PdfPage[]> {
    const all = await this.content.pages(revisionId);
    const children = new Map<string | null, PageWithBody[]>();
    for (const page of all) children.set(page.parentId, [...(children.get(page.parentId) ?? []), page]);
    for (const list of children.values()) list.sort((a, b) => a.position - b.position);
    const ordered: PdfPage[] = [];
    const walk = (page: PageWithBody, depth: number, deep: boolean) => {
      if (page.kind !== 'link') ordered.push({ title: page.title, depth, markdown: page.markdown ?? '' });
      if (deep) for (const child of children.get(page.pageId) ?? []) walk(child, depth + 1, true);
    };
    if (query.page) {
      const start = all.find((page) => page.pageId === query.page);
      if (!start) throw contentError('content.page_not_found', `Page ${query.page} not found`);
      walk(start, 0, !query.only);
    } else for (const root of children.get(null) ?? []) walk(root, 0, true);
    return ordered;
  }
}
