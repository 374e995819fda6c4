import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { Page } from '../../common/pagination/paginate';
import type { Membership } from '../organizations/membership.entity';
import type { User } from '../users/user.entity';
import {
  AddSectionDto,
  CreateSectionGroupDto,
  ListSectionsQueryDto,
  MoveSectionDto,
  MoveSectionGroupDto,
  UpdateSectionDto,
  UpdateSectionGroupDto,
} from './dto/structure.dto';
import type { SiteSectionGroup } from './site-section-group.entity';
import type { SiteSection } from './site-section.entity';
import { siteError } from './site.errors';
import type { SectionGroupRow, SectionRow, SiteView } from './site.read-model';
import { SiteStructureRepository } from './site-structure.repository';
import { GAP, SiteStructureService } from './site-structure.service';
import { SiteWrites } from './site-writes';
import { SitesRepository } from './sites.repository';
import { slugOf, uniquePath } from './structure-order';

/**
 * The section and section-group routes (`site-sections.controller.ts`): a site's sections (each
 * holding its variants), the groups that gather them, their defaults and their order.
 */
@Injectable()
export class SiteSectionsService {
  constructor(
    private readonly sites: SitesRepository,
    private readonly rows: SiteStructureRepository,
    private readonly writes: SiteWrites,
    private readonly structure: SiteStructureService,
  ) {}

  async listSections(user: User, caller: Membership, siteId: string, query: ListSectionsQueryDto): Promise<SiteView<Page<SectionRow>>> {
    const site = await this.writes.read(caller, siteId);
    const page = await this.sites.listSections(site.id, query);
    const rows = await this.structure.sectionRows(site.id, page.items);
    return this.structure.view(
      user,
      site,
      { ...page, items: rows },
      rows.flatMap((row) => row.siteSpaces.map((s) => s.space)),
      query.shareKey,
    );
  }

  async listGroups(user: User, caller: Membership, siteId: string, query: { page?: string; limit: number }): Promise<SiteView<Page<SectionGroupRow>>> {
    const site = await this.writes.read(caller, siteId);
    const page = await this.sites.listGroups(site.id, query);
    const sections = (await this.sites.sections(site.id)).filter((section) => page.items.some((group) => group.id === section.groupId));
    const sectionRows = await this.structure.sectionRows(site.id, sections);
    const rows = page.items.map((group) => ({ group, sections: sectionRows.filter((row) => row.section.groupId === group.id) }));
    return this.structure.view(
      user,
      site,
      { ...page, items: rows },
      sectionRows.flatMap((row) => row.siteSpaces.map((s) => s.space)),
    );
  }

  async addSection(user: User, caller: Membership, siteId: string, dto: AddSectionDto): Promise<SiteView<SectionRow>> {
    const space = await this.structure.viewableSpace(user, caller, dto.spaceId);
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      const groupId = dto.siteSectionGroupId !== undefined ? (await this.structure.groupOf(em, site.id, dto.siteSectionGroupId)).id : null;
      const title = dto.title ?? (space.title.trim().length >= 2 ? space.title.slice(0, 128) : 'Untitled section');
      const level = groupId === null ? await this.structure.rootLevel(em, site.id) : sections.filter((section) => section.groupId === groupId);
      const id = newId();
      await this.rows.insertSection(
        {
          id,
          siteId: site.id,
          groupId,
          title,
          description: null,
          path: uniquePath(slugOf(title, 'section'), new Set(sections.map((section) => section.path))),
          icon: dto.icon ?? null,
          condition: null,
          isDefault: sections.length === 0,
          position: (level.length > 0 ? Math.max(...level.map((item) => item.position)) : 0) + GAP,
        },
        em,
      );
      if (sections.length === 0) await this.rows.moveRootSiteSpacesInto(site.id, id, em);
      await this.structure.insertSiteSpace(em, site.id, id, space);
      return this.structure.sectionView(user, site, id, em);
    });
  }

  async updateSection(user: User, caller: Membership, siteId: string, sectionId: string, dto: UpdateSectionDto): Promise<SiteView<SectionRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.structure.sectionOf(em, site.id, sectionId);
      const changes: Partial<SiteSection> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.path !== undefined && dto.path !== section.path) {
        if (await this.rows.sectionPathTaken(site.id, dto.path, em))
          throw siteError('site.path_taken', `path: ${dto.path} is already the path of another section`);
        changes.path = dto.path;
      }
      if (dto.condition !== undefined) changes.condition = this.structure.checkedCondition(dto.condition);
      if (dto.icon !== undefined) changes.icon = dto.icon;
      if (dto.description !== undefined) changes.description = dto.description;
      await this.rows.updateSection(section.id, changes, em);
      if (dto.defaultSiteSpace !== undefined) await this.structure.makeDefaultSiteSpace(em, site.id, section.id, dto.defaultSiteSpace);
      return this.structure.sectionView(user, site, section.id, em);
    });
  }

  /** Deletes a section and its site spaces; when it was the default, the first remaining section in structure order becomes it. */
  async deleteSection(caller: Membership, siteId: string, sectionId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.structure.sectionOf(em, site.id, sectionId);
      await this.rows.deleteSection(section.id, em);
      if (!section.isDefault) return;
      const structure = await this.structure.structure(site, em);
      if (structure.type !== 'sections') return;
      const first = structure.items.flatMap((item) => ('group' in item ? item.sections : [item]))[0];
      if (first) await this.rows.updateSection(first.section.id, { isDefault: true }, em);
    });
  }

  async moveSection(user: User, caller: Membership, siteId: string, sectionId: string, dto: MoveSectionDto): Promise<SiteView<SectionRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.structure.sectionOf(em, site.id, sectionId);
      await this.structure.moveAmongSiblings(em, site, 'site-section', section, {
        before: dto.position?.before?.siteSection,
        after: dto.position?.after?.siteSection,
      });
      return this.structure.sectionView(user, site, section.id, em);
    });
  }

  // --- section groups ------------------------------------------------------------------------------------

  async createGroup(user: User, caller: Membership, siteId: string, dto: CreateSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      const members = [...new Set(dto.sections ?? [])].map((id) => this.structure.found(sections, id, 'site.section_not_found', 'Section'));
      const root = await this.structure.rootLevel(em, site.id);
      const id = newId();
      await this.rows.insertGroup(
        {
          id,
          siteId: site.id,
          title: dto.title,
          icon: dto.icon ?? null,
          position: (root.length > 0 ? Math.max(...root.map((item) => item.position)) : 0) + GAP,
        },
        em,
      );
      for (const [index, section] of members.entries()) await this.rows.updateSection(section.id, { groupId: id, position: (index + 1) * GAP }, em);
      return this.structure.groupView(user, site, id, em);
    });
  }

  async updateGroup(user: User, caller: Membership, siteId: string, groupId: string, dto: UpdateSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.structure.groupOf(em, site.id, groupId);
      const changes: Partial<SiteSectionGroup> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.icon !== undefined) changes.icon = dto.icon;
      await this.rows.updateGroup(group.id, changes, em);
      return this.structure.groupView(user, site, group.id, em);
    });
  }

  /** Deletes a group; its sections stay, at the root level where the group was. */
  async deleteGroup(caller: Membership, siteId: string, groupId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.structure.groupOf(em, site.id, groupId);
      const members = (await this.sites.sections(site.id, em)).filter((section) => section.groupId === group.id);
      const root = await this.structure.rootLevel(em, site.id);
      const order = root.flatMap((item) =>
        item.type === 'site-section-group' && item.id === group.id ? members.map((s) => ({ type: 'site-section', id: s.id, position: 0 })) : [item],
      );
      await this.rows.deleteGroup(group.id, em);
      await this.structure.placeLevel(
        em,
        order.filter((item) => !(item.type === 'site-section-group' && item.id === group.id)),
      );
    });
  }

  async addSectionToGroup(user: User, caller: Membership, siteId: string, groupId: string, sectionId: string): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.structure.groupOf(em, site.id, groupId);
      const section = await this.structure.sectionOf(em, site.id, sectionId);
      if (section.groupId !== group.id) {
        const members = (await this.sites.sections(site.id, em)).filter((s) => s.groupId === group.id);
        const end = (members.length > 0 ? Math.max(...members.map((s) => s.position)) : 0) + GAP;
        await this.rows.updateSection(section.id, { groupId: group.id, position: end }, em);
      }
      return this.structure.groupView(user, site, group.id, em);
    });
  }

  /** Takes a section out of its group, to the end of the root level. */
  async removeSectionFromGroup(caller: Membership, siteId: string, groupId: string, sectionId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.structure.groupOf(em, site.id, groupId);
      const section = await this.structure.sectionOf(em, site.id, sectionId);
      if (section.groupId !== group.id) throw siteError('site.section_not_found', `Section ${sectionId} is not in section group ${groupId}`);
      const root = await this.structure.rootLevel(em, site.id);
      await this.rows.updateSection(section.id, { groupId: null, position: (root.length > 0 ? Math.max(...root.map((item) => item.position)) : 0) + GAP }, em);
    });
  }

  async moveGroup(user: User, caller: Membership, siteId: string, groupId: string, dto: MoveSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.structure.groupOf(em, site.id, groupId);
      await this.structure.moveInLevel(em, await this.structure.rootLevel(em, site.id), { type: 'site-section-group', id: group.id }, dto.position ?? {});
      return this.structure.groupView(user, site, group.id, em);
    });
  }
}
