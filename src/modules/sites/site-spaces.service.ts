import { Injectable } from '@nestjs/common';
import type { Page } from '../../common/pagination/paginate';
import type { Membership } from '../organizations/membership.entity';
import type { User } from '../users/user.entity';
import { AddSiteSpaceDto, ListSiteSpacesQueryDto, MoveSiteSpaceDto, UpdateSiteSpaceDto } from './dto/structure.dto';
import type { SiteSpace } from './site-space.entity';
import { siteError } from './site.errors';
import type { SiteSpaceRow, SiteView } from './site.read-model';
import { SiteStructureRepository } from './site-structure.repository';
import { SiteSpaceWithSpace, SiteStructureService, spaceRow, urlPathOf } from './site-structure.service';
import { SiteWrites } from './site-writes';
import { SitesRepository } from './sites.repository';

/** The site-space routes (`site-spaces.controller.ts`): a site's site spaces, their paths, conditions and order. */
@Injectable()
export class SiteSpacesService {
  constructor(
    private readonly sites: SitesRepository,
    private readonly rows: SiteStructureRepository,
    private readonly writes: SiteWrites,
    private readonly structure: SiteStructureService,
  ) {}

  async listSiteSpaces(user: User, caller: Membership, siteId: string, query: ListSiteSpacesQueryDto): Promise<SiteView<Page<SiteSpaceRow>>> {
    const site = await this.writes.read(caller, siteId);
    const page = await this.sites.listSiteSpaces(site.id, query);
    const paths = new Map((await this.sites.sections(site.id)).map((section) => [section.id, urlPathOf(section)]));
    const rows = page.items.map((row) => spaceRow(row as SiteSpaceWithSpace, row.sectionId ? (paths.get(row.sectionId) ?? null) : null));
    return this.structure.view(
      user,
      site,
      { ...page, items: rows },
      rows.map((row) => row.space),
      query.shareKey,
    );
  }

  async addSiteSpace(user: User, caller: Membership, siteId: string, dto: AddSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    const space = await this.structure.viewableSpace(user, caller, dto.spaceId);
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      let sectionId: string | null = null;
      if (dto.sectionId !== undefined) sectionId = this.structure.found(sections, dto.sectionId, 'site.section_not_found', 'Section').id;
      else if (sections.length > 0) sectionId = (sections.find((section) => section.isDefault) ?? sections[0]).id;
      const id = await this.structure.insertSiteSpace(em, site.id, sectionId, space);
      return this.structure.siteSpaceView(user, site, id, em);
    });
  }

  async updateSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string, dto: UpdateSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    const space = dto.spaceId !== undefined ? await this.structure.viewableSpace(user, caller, dto.spaceId) : null;
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.structure.siteSpaceOf(em, site.id, siteSpaceId);
      const changes: Partial<Omit<SiteSpace, 'customization'>> = {};
      if (dto.path !== undefined && dto.path !== row.path) {
        if ((await this.sites.pathsInLevel(site.id, row.sectionId, em)).has(dto.path)) {
          throw siteError('site.path_taken', `path: ${dto.path} is already the path of another site space of this section`);
        }
        changes.path = dto.path;
      }
      if (dto.condition !== undefined) changes.condition = this.structure.checkedCondition(dto.condition);
      if (space) changes.spaceId = space.id;
      await this.rows.updateSiteSpace(row.id, changes, em);
      return this.structure.siteSpaceView(user, site, row.id, em);
    });
  }

  /** Removes a site space; when it was its level's default, the next one in order becomes the default. */
  async deleteSiteSpace(caller: Membership, siteId: string, siteSpaceId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.structure.siteSpaceOf(em, site.id, siteSpaceId);
      await this.rows.deleteSiteSpace(row.id, em);
      if (row.isDefault) {
        const [next] = await this.sites.levelSiteSpaces(site.id, row.sectionId, em);
        if (next) await this.rows.updateSiteSpace(next.id, { isDefault: true }, em);
      }
    });
  }

  async moveSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string, dto: MoveSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.structure.siteSpaceOf(em, site.id, siteSpaceId);
      await this.structure.moveAmongSiblings(em, site, 'site-space', row, { before: dto.position?.before?.siteSpace, after: dto.position?.after?.siteSpace });
      return this.structure.siteSpaceView(user, site, row.id, em);
    });
  }

  /** A second site space of the same space, at the end of the same level, on a free path; never the default. */
  async duplicateSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string): Promise<SiteView<SiteSpaceRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.sites.findSiteSpace(site.id, siteSpaceId, em);
      if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
      const id = await this.structure.insertSiteSpace(em, site.id, row.sectionId, row.space, row.path.slice(0, 90));
      await this.rows.updateSiteSpace(id, { condition: row.condition }, em);
      return this.structure.siteSpaceView(user, site, id, em);
    });
  }
}
