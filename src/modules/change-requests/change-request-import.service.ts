import { Injectable } from '@nestjs/common';
import { SpaceAccess } from '../access/space-access.service';
import { contentError } from '../content/content.errors';
import { ImportContentDto } from '../content/dto/import-content.dto';
import { ImportResult, WebsiteImportService } from '../content/import/website-import.service';
import { SpaceUnitOfWork } from '../space-writes/space-unit-of-work';
import { User } from '../users/user.entity';
import { ChangeRequestContentService } from './change-request-content.service';
import { ChangeRequestRevisions } from './change-request-revisions';
import { CHANGE_REQUEST_POLICY } from './change-request.policy';
import { ChangeRequestsRepository } from './change-requests.repository';

/**
 * Website import into a change request (section 4.7): the same crawler as the space's import, run
 * before the write; the pages land in a new head of the change request (after its top-level pages,
 * or under one page), not in main.
 */
@Injectable()
export class ChangeRequestImportService {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly imports: WebsiteImportService,
    private readonly authoring: ChangeRequestContentService,
    private readonly rows: ChangeRequestsRepository,
    private readonly revisions: ChangeRequestRevisions,
  ) {}

  async import(user: User, access: SpaceAccess, idOrNumber: string, dto: ImportContentDto, underPageId?: string): Promise<ImportResult> {
    // Refuse a closed change request or an unknown page before crawling for minutes.
    await this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      if (underPageId && !(await this.revisions.load(write.space.id, cr.revision, write.em)).pages.some((page) => page.pageId === underPageId)) {
        throw contentError('content.page_not_found', `Page ${underPageId} not found`);
      }
    });
    const prepared = await this.imports.prepare(access.space.id, dto);
    return this.spaceWrites.run(access.space.id, user, CHANGE_REQUEST_POLICY.write, async (write) => {
      const cr = await this.authoring.open(write, idOrNumber);
      const built = await this.imports.buildOn(write.space.id, cr.revision, prepared, write.em, underPageId);
      if (underPageId && !built.pages.all.some((page) => page.pageId === underPageId))
        throw contentError('content.page_not_found', `Page ${underPageId} not found`);
      const revision = await this.revisions.writeDraft(
        {
          spaceId: write.space.id,
          parents: [cr.revision],
          type: 'edits',
          createdBy: user.id,
          pages: built.pages.all,
          files: built.files,
          reusableContents: built.reusableContents,
          variables: built.variables,
        },
        write.em,
      );
      await this.rows.update(cr.id, { revision }, write.em);
      await this.rows.addContributor(cr.id, user.id, write.em);
      return { revision, importedResources: built.importedResources, totalResources: built.totalResources };
    });
  }
}
