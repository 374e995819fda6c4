import { Injectable, OnModuleInit } from '@nestjs/common';
import { SpaceUnitOfWork } from '../../space-writes/space-unit-of-work';
import { SiteRedirectsRepository } from './site-redirects.repository';

/**
 * Old URLs of moved pages keep working: when a new revision of a space shown by a published site
 * becomes active (a merge, an import, a restore), the old path of every page whose path changed is
 * kept (`space_moved_pages`, in the activating transaction), and the `SITE_REDIRECTS` port sends the
 * old path to where the page is now.
 */
@Injectable()
export class MovedPagesListener implements OnModuleInit {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly redirects: SiteRedirectsRepository,
  ) {}

  onModuleInit(): void {
    this.spaceWrites.onRevisionActivated(async ({ spaceId, revisionId, previousRevisionId }, em) => {
      if (!previousRevisionId || previousRevisionId === revisionId) return;
      if (!(await this.redirects.shownByPublishedSite(spaceId, em))) return;
      await this.redirects.recordMoves(spaceId, previousRevisionId, revisionId, em);
    });
  }
}
