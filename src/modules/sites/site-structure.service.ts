import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { Page } from '../../common/pagination/paginate';
import { accessError } from '../access/access.errors';
import { SpaceAccessService } from '../access/space-access.service';
import type { Membership } from '../organizations/membership.entity';
import type { Space } from '../space-model/space.entity';
import type { User } from '../users/user.entity';
import { conditionProblem } from './adaptive-content';
import {
  AddSectionDto,
  AddSiteSpaceDto,
  CreateSectionGroupDto,
  ListSectionsQueryDto,
  ListSiteSpacesQueryDto,
  MoveSectionDto,
  MoveSectionGroupDto,
  MoveSiteSpaceDto,
  SortStructureDto,
  UpdateSectionDto,
  UpdateSectionGroupDto,
  UpdateSiteSpaceDto,
} from './dto/structure.dto';
import { SiteSectionGroup } from './site-section-group.entity';
import { SiteSection } from './site-section.entity';
import { SiteSpace } from './site-space.entity';
import { siteError } from './site.errors';
import type { Site } from './site.entity';
import type { SectionGroupRow, SectionRow, SiteSpaceRow, SiteView, StructureRow } from './site.read-model';
import { SiteWrites } from './site-writes';
import { SitesRepository, StructureTable } from './sites.repository';
import { LevelItem, reorder, slugOf, uniquePath } from './structure-order';

type SiteSpaceWithSpace = SiteSpace & { space: Space };
export type StructureItemRow =
  { type: 'site-space'; row: SiteSpaceRow } | { type: 'site-section'; row: SectionRow } | { type: 'site-section-group'; row: SectionGroupRow };

const GAP = 1024;
const TABLES: Record<string, StructureTable> = { 'site-space': 'site_spaces', 'site-section': 'site_sections', 'site-section-group': 'site_section_groups' };
const byPosition = (a: { position: number; id: string }, b: { position: number; id: string }) =>
  a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * What a site is built from: site spaces, sections and section groups, their kept order and the
 * invariants of their defaults (one default site space per level; one default section while the
 * site has sections). Every write runs under the site row's lock (`SiteWrites.run`).
 */
@Injectable()
export class SiteStructureService {
  constructor(
    private readonly sites: SitesRepository,
    private readonly writes: SiteWrites,
    private readonly access: SpaceAccessService,
  ) {}

  // --- reading ---------------------------------------------------------------------------------------

  /** The site's tree in order: sections and groups at the root when it has sections, else its site spaces. */
  async structure(site: Site, em?: EntityManager): Promise<StructureRow> {
    const [sections, groups, siteSpaces] = await Promise.all([
      this.sites.sections(site.id, em),
      this.sites.groups(site.id, em),
      this.sites.siteSpaces(site.id, em),
    ]);
    if (sections.length === 0) return { type: 'siteSpaces', items: siteSpaces.filter((row) => row.sectionId === null).map((row) => spaceRow(row, null)) };
    const sectionRow = (section: SiteSection): SectionRow => ({
      section,
      siteSpaces: siteSpaces.filter((row) => row.sectionId === section.id).map((row) => spaceRow(row, urlPathOf(section))),
    });
    const root = [
      ...sections
        .filter((section) => section.groupId === null)
        .map((section) => ({ id: section.id, position: section.position, row: sectionRow(section) as SectionRow | SectionGroupRow })),
      ...groups.map((group) => ({
        id: group.id,
        position: group.position,
        row: { group, sections: sections.filter((section) => section.groupId === group.id).map(sectionRow) } as SectionRow | SectionGroupRow,
      })),
    ].sort(byPosition);
    return { type: 'sections', items: root.map((item) => item.row) };
  }

  /** A view for the presenter: the caller's permissions on every space shown, and the share key when it opens the site. */
  async view<T>(user: User, site: Site, value: T, spaces: Space[], shareKey?: string): Promise<SiteView<T>> {
    const unique = [...new Map(spaces.map((space) => [space.id, space])).values()];
    const spacePermissions = await this.access.permissionsFor(user, unique);
    const opens = shareKey !== undefined && site.visibility === 'share-link' && (await this.sites.shareKeyOpens(site.id, shareKey));
    return { site, value, spacePermissions, shareKey: opens ? shareKey : undefined };
  }

  async listSiteSpaces(user: User, caller: Membership, siteId: string, query: ListSiteSpacesQueryDto): Promise<SiteView<Page<SiteSpaceRow>>> {
    const site = await this.writes.read(caller, siteId);
    const page = await this.sites.listSiteSpaces(site.id, query);
    const paths = new Map((await this.sites.sections(site.id)).map((section) => [section.id, urlPathOf(section)]));
    const rows = page.items.map((row) => spaceRow(row as SiteSpaceWithSpace, row.sectionId ? (paths.get(row.sectionId) ?? null) : null));
    return this.view(
      user,
      site,
      { ...page, items: rows },
      rows.map((row) => row.space),
      query.shareKey,
    );
  }

  async listSections(user: User, caller: Membership, siteId: string, query: ListSectionsQueryDto): Promise<SiteView<Page<SectionRow>>> {
    const site = await this.writes.read(caller, siteId);
    const page = await this.sites.listSections(site.id, query);
    const rows = await this.sectionRows(site.id, page.items);
    return this.view(
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
    const sectionRows = await this.sectionRows(site.id, sections);
    const rows = page.items.map((group) => ({ group, sections: sectionRows.filter((row) => row.section.groupId === group.id) }));
    return this.view(
      user,
      site,
      { ...page, items: rows },
      sectionRows.flatMap((row) => row.siteSpaces.map((s) => s.space)),
    );
  }

  async getStructure(user: User, caller: Membership, siteId: string, shareKey?: string): Promise<SiteView<StructureRow>> {
    const site = await this.writes.read(caller, siteId);
    const structure = await this.structure(site);
    return this.view(user, site, structure, spacesOf(structure), shareKey);
  }

  private async sectionRows(siteId: string, sections: SiteSection[], em?: EntityManager): Promise<SectionRow[]> {
    const siteSpaces = await this.sites.siteSpaces(
      siteId,
      em,
      sections.map((section) => section.id),
    );
    return sections.map((section) => ({
      section,
      siteSpaces: siteSpaces.filter((row) => row.sectionId === section.id).map((row) => spaceRow(row, urlPathOf(section))),
    }));
  }

  // --- site spaces -------------------------------------------------------------------------------------

  /** The space to show, which the caller must be able to view, in the site's organization (else 404). */
  private async viewableSpace(user: User, caller: Membership, spaceId: string): Promise<Space> {
    const { space } = await this.access.require(user, spaceId, 'view');
    if (space.organizationId !== caller.organizationId) throw accessError('space.not_found', `Space ${spaceId} not found`);
    return space;
  }

  async addSiteSpace(user: User, caller: Membership, siteId: string, dto: AddSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    const space = await this.viewableSpace(user, caller, dto.spaceId);
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      let sectionId: string | null = null;
      if (dto.sectionId !== undefined) sectionId = this.found(sections, dto.sectionId, 'site.section_not_found', 'Section').id;
      else if (sections.length > 0) sectionId = (sections.find((section) => section.isDefault) ?? sections[0]).id;
      const id = await this.insertSiteSpace(em, site.id, sectionId, space);
      return this.siteSpaceView(user, site, id, em);
    });
  }

  /** Adds `space` at the end of a level; the first site space of a level is its default. Returns the new id. */
  async insertSiteSpace(em: EntityManager, siteId: string, sectionId: string | null, space: Space, pathBase?: string): Promise<string> {
    const level = await this.sites.levelSiteSpaces(siteId, sectionId, em);
    const id = newId();
    await em.insert(SiteSpace, {
      id,
      siteId,
      sectionId,
      spaceId: space.id,
      path: uniquePath(pathBase ?? slugOf(space.title, 'space'), new Set(level.map((row) => row.path))),
      condition: null,
      isDefault: !level.some((row) => row.isDefault),
      position: (level.length > 0 ? Math.max(...level.map((row) => row.position)) : 0) + GAP,
    });
    return id;
  }

  private async siteSpaceView(user: User, site: Site, siteSpaceId: string, em: EntityManager): Promise<SiteView<SiteSpaceRow>> {
    const row = await this.sites.findSiteSpace(site.id, siteSpaceId, em);
    if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
    const section = row.sectionId ? await em.findOneBy(SiteSection, { id: row.sectionId }) : null;
    const value = spaceRow(row, section ? urlPathOf(section) : null);
    return this.view(user, site, value, [value.space]);
  }

  private async siteSpaceOf(em: EntityManager, siteId: string, siteSpaceId: string): Promise<SiteSpace> {
    const row = await this.sites.findSiteSpaceRow(siteId, siteSpaceId, em);
    if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
    return row;
  }

  async updateSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string, dto: UpdateSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    const space = dto.spaceId !== undefined ? await this.viewableSpace(user, caller, dto.spaceId) : null;
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.siteSpaceOf(em, site.id, siteSpaceId);
      const changes: Partial<Omit<SiteSpace, 'customization'>> = {};
      if (dto.path !== undefined && dto.path !== row.path) {
        if ((await this.sites.pathsInLevel(site.id, row.sectionId, em)).has(dto.path)) {
          throw siteError('site.path_taken', `path: ${dto.path} is already the path of another site space of this section`);
        }
        changes.path = dto.path;
      }
      if (dto.condition !== undefined) changes.condition = this.checkedCondition(dto.condition);
      if (space) changes.spaceId = space.id;
      if (Object.keys(changes).length > 0) await em.update(SiteSpace, { id: row.id }, changes);
      return this.siteSpaceView(user, site, row.id, em);
    });
  }

  /** Removes a site space; when it was its level's default, the next one in order becomes the default. */
  async deleteSiteSpace(caller: Membership, siteId: string, siteSpaceId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.siteSpaceOf(em, site.id, siteSpaceId);
      await em.delete(SiteSpace, { id: row.id });
      if (row.isDefault) {
        const [next] = await this.sites.levelSiteSpaces(site.id, row.sectionId, em);
        if (next) await em.update(SiteSpace, { id: next.id }, { isDefault: true });
      }
    });
  }

  async moveSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string, dto: MoveSiteSpaceDto): Promise<SiteView<SiteSpaceRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.siteSpaceOf(em, site.id, siteSpaceId);
      const pointer = (p?: { siteSpace: string }) => (p ? { type: 'site-space', id: p.siteSpace } : undefined);
      await this.moveInLevel(
        em,
        await this.levelOf(em, site, 'site-space', row),
        { type: 'site-space', id: row.id },
        {
          before: pointer(dto.position?.before),
          after: pointer(dto.position?.after),
        },
      );
      return this.siteSpaceView(user, site, row.id, em);
    });
  }

  /** A second site space of the same space, at the end of the same level, on a free path; never the default. */
  async duplicateSiteSpace(user: User, caller: Membership, siteId: string, siteSpaceId: string): Promise<SiteView<SiteSpaceRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const row = await this.sites.findSiteSpace(site.id, siteSpaceId, em);
      if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
      const id = await this.insertSiteSpace(em, site.id, row.sectionId, row.space, row.path.slice(0, 90));
      await em.update(SiteSpace, { id }, { condition: row.condition });
      return this.siteSpaceView(user, site, id, em);
    });
  }

  // --- sections ------------------------------------------------------------------------------------------

  /**
   * A new section holding `spaceId` as its first site space. The first section of a site becomes
   * its default and takes over the site spaces of the root level (a site is organized either in
   * sections or as root site spaces, never both).
   */
  async addSection(user: User, caller: Membership, siteId: string, dto: AddSectionDto): Promise<SiteView<SectionRow>> {
    const space = await this.viewableSpace(user, caller, dto.spaceId);
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      const groupId = dto.siteSectionGroupId !== undefined ? (await this.groupOf(em, site.id, dto.siteSectionGroupId)).id : null;
      const title = dto.title ?? (space.title.trim().length >= 2 ? space.title.slice(0, 128) : 'Untitled section');
      const level = groupId === null ? await this.rootLevel(em, site.id) : sections.filter((section) => section.groupId === groupId);
      const id = newId();
      await em.insert(SiteSection, {
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
      });
      if (sections.length === 0) await em.query(`UPDATE site_spaces SET section_id = $2 WHERE site_id = $1 AND section_id IS NULL`, [site.id, id]);
      await this.insertSiteSpace(em, site.id, id, space);
      return this.sectionView(user, site, id, em);
    });
  }

  private async sectionView(user: User, site: Site, sectionId: string, em: EntityManager): Promise<SiteView<SectionRow>> {
    const section = await this.sectionOf(em, site.id, sectionId);
    const [row] = await this.sectionRows(site.id, [section], em);
    return this.view(
      user,
      site,
      row,
      row.siteSpaces.map((s) => s.space),
    );
  }

  private async sectionOf(em: EntityManager, siteId: string, sectionId: string): Promise<SiteSection> {
    const section = await em.findOneBy(SiteSection, { siteId, id: sectionId });
    if (!section) throw siteError('site.section_not_found', `Section ${sectionId} not found`);
    return section;
  }

  private async groupOf(em: EntityManager, siteId: string, groupId: string): Promise<SiteSectionGroup> {
    const group = await em.findOneBy(SiteSectionGroup, { siteId, id: groupId });
    if (!group) throw siteError('site.section_group_not_found', `Section group ${groupId} not found`);
    return group;
  }

  async updateSection(user: User, caller: Membership, siteId: string, sectionId: string, dto: UpdateSectionDto): Promise<SiteView<SectionRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.sectionOf(em, site.id, sectionId);
      const changes: Partial<SiteSection> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.path !== undefined && dto.path !== section.path) {
        if (await em.existsBy(SiteSection, { siteId: site.id, path: dto.path }))
          throw siteError('site.path_taken', `path: ${dto.path} is already the path of another section`);
        changes.path = dto.path;
      }
      if (dto.condition !== undefined) changes.condition = this.checkedCondition(dto.condition);
      if (dto.icon !== undefined) changes.icon = dto.icon;
      if (dto.description !== undefined) changes.description = dto.description;
      if (Object.keys(changes).length > 0) await em.update(SiteSection, { id: section.id }, changes);
      if (dto.defaultSiteSpace !== undefined) await this.makeDefaultSiteSpace(em, site.id, section.id, dto.defaultSiteSpace);
      return this.sectionView(user, site, section.id, em);
    });
  }

  /** Makes `siteSpaceId` the default of its level, which must be `sectionId` (null: the root). */
  async makeDefaultSiteSpace(em: EntityManager, siteId: string, sectionId: string | null, siteSpaceId: string): Promise<void> {
    const row = await this.siteSpaceOf(em, siteId, siteSpaceId);
    if (row.sectionId !== sectionId) {
      throw siteError(
        'site.invalid_structure',
        `defaultSiteSpace: site space ${siteSpaceId} is not in ${sectionId === null ? "the site's root level" : `section ${sectionId}`}`,
      );
    }
    if (row.isDefault) return;
    // Two statements: the partial unique index allows one default per level at any moment.
    await em.query(`UPDATE site_spaces SET is_default = false WHERE site_id = $1 AND section_id IS NOT DISTINCT FROM $2 AND is_default`, [siteId, sectionId]);
    await em.update(SiteSpace, { id: row.id }, { isDefault: true });
  }

  async makeDefaultSection(em: EntityManager, siteId: string, sectionId: string): Promise<void> {
    const section = await this.sectionOf(em, siteId, sectionId);
    if (section.isDefault) return;
    await em.query(`UPDATE site_sections SET is_default = false WHERE site_id = $1 AND is_default`, [siteId]);
    await em.update(SiteSection, { id: section.id }, { isDefault: true });
  }

  /** Deletes a section and its site spaces; when it was the default, the first remaining section in structure order becomes it. */
  async deleteSection(caller: Membership, siteId: string, sectionId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.sectionOf(em, site.id, sectionId);
      await em.delete(SiteSection, { id: section.id });
      if (!section.isDefault) return;
      const structure = await this.structure(site, em);
      if (structure.type !== 'sections') return;
      const first = structure.items.flatMap((item) => ('group' in item ? item.sections : [item]))[0];
      if (first) await em.update(SiteSection, { id: first.section.id }, { isDefault: true });
    });
  }

  async moveSection(user: User, caller: Membership, siteId: string, sectionId: string, dto: MoveSectionDto): Promise<SiteView<SectionRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const section = await this.sectionOf(em, site.id, sectionId);
      const pointer = (p?: { siteSection: string }) => (p ? { type: 'site-section', id: p.siteSection } : undefined);
      await this.moveInLevel(
        em,
        await this.levelOf(em, site, 'site-section', section),
        { type: 'site-section', id: section.id },
        {
          before: pointer(dto.position?.before),
          after: pointer(dto.position?.after),
        },
      );
      return this.sectionView(user, site, section.id, em);
    });
  }

  // --- section groups ------------------------------------------------------------------------------------

  async createGroup(user: User, caller: Membership, siteId: string, dto: CreateSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const sections = await this.sites.sections(site.id, em);
      const members = [...new Set(dto.sections ?? [])].map((id) => this.found(sections, id, 'site.section_not_found', 'Section'));
      const root = await this.rootLevel(em, site.id);
      const id = newId();
      await em.insert(SiteSectionGroup, {
        id,
        siteId: site.id,
        title: dto.title,
        icon: dto.icon ?? null,
        position: (root.length > 0 ? Math.max(...root.map((item) => item.position)) : 0) + GAP,
      });
      for (const [index, section] of members.entries()) await em.update(SiteSection, { id: section.id }, { groupId: id, position: (index + 1) * GAP });
      return this.groupView(user, site, id, em);
    });
  }

  private async groupView(user: User, site: Site, groupId: string, em: EntityManager): Promise<SiteView<SectionGroupRow>> {
    const group = await this.groupOf(em, site.id, groupId);
    const sections = (await this.sites.sections(site.id, em)).filter((section) => section.groupId === group.id);
    const rows = await this.sectionRows(site.id, sections, em);
    return this.view(
      user,
      site,
      { group, sections: rows },
      rows.flatMap((row) => row.siteSpaces.map((s) => s.space)),
    );
  }

  async updateGroup(user: User, caller: Membership, siteId: string, groupId: string, dto: UpdateSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.groupOf(em, site.id, groupId);
      const changes: Partial<SiteSectionGroup> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.icon !== undefined) changes.icon = dto.icon;
      if (Object.keys(changes).length > 0) await em.update(SiteSectionGroup, { id: group.id }, changes);
      return this.groupView(user, site, group.id, em);
    });
  }

  /** Deletes a group; its sections stay, at the root level where the group was. */
  async deleteGroup(caller: Membership, siteId: string, groupId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.groupOf(em, site.id, groupId);
      const members = (await this.sites.sections(site.id, em)).filter((section) => section.groupId === group.id);
      const root = await this.rootLevel(em, site.id);
      const order = root.flatMap((item) =>
        item.type === 'site-section-group' && item.id === group.id ? members.map((s) => ({ type: 'site-section', id: s.id, position: 0 })) : [item],
      );
      await em.delete(SiteSectionGroup, { id: group.id });
      await this.placeLevel(
        em,
        order.filter((item) => !(item.type === 'site-section-group' && item.id === group.id)),
      );
    });
  }

  async addSectionToGroup(user: User, caller: Membership, siteId: string, groupId: string, sectionId: string): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.groupOf(em, site.id, groupId);
      const section = await this.sectionOf(em, site.id, sectionId);
      if (section.groupId !== group.id) {
        const members = (await this.sites.sections(site.id, em)).filter((s) => s.groupId === group.id);
        const end = (members.length > 0 ? Math.max(...members.map((s) => s.position)) : 0) + GAP;
        await em.update(SiteSection, { id: section.id }, { groupId: group.id, position: end });
      }
      return this.groupView(user, site, group.id, em);
    });
  }

  /** Takes a section out of its group, to the end of the root level. */
  async removeSectionFromGroup(caller: Membership, siteId: string, groupId: string, sectionId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.groupOf(em, site.id, groupId);
      const section = await this.sectionOf(em, site.id, sectionId);
      if (section.groupId !== group.id) throw siteError('site.section_not_found', `Section ${sectionId} is not in section group ${groupId}`);
      const root = await this.rootLevel(em, site.id);
      await em.update(
        SiteSection,
        { id: section.id },
        { groupId: null, position: (root.length > 0 ? Math.max(...root.map((item) => item.position)) : 0) + GAP },
      );
    });
  }

  async moveGroup(user: User, caller: Membership, siteId: string, groupId: string, dto: MoveSectionGroupDto): Promise<SiteView<SectionGroupRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const group = await this.groupOf(em, site.id, groupId);
      await this.moveInLevel(em, await this.rootLevel(em, site.id), { type: 'site-section-group', id: group.id }, dto.position ?? {});
      return this.groupView(user, site, group.id, em);
    });
  }

  // --- the kept order ------------------------------------------------------------------------------------

  /** `sortSiteStructure`: moves any item among the siblings of its level; a pointer outside that level → 400. */
  async sort(user: User, caller: Membership, siteId: string, dto: SortStructureDto): Promise<SiteView<StructureItemRow>> {
    return this.writes.run(caller, siteId, 'create', async (em, site) => {
      const { type, id } = dto.item;
      const item =
        type === 'site-space'
          ? await this.siteSpaceOf(em, site.id, id)
          : type === 'site-section'
            ? await this.sectionOf(em, site.id, id)
            : await this.groupOf(em, site.id, id);
      await this.moveInLevel(em, await this.levelOf(em, site, type, item), { type, id }, dto.position);
      if (type === 'site-space') return this.wrap(await this.siteSpaceView(user, site, id, em), 'site-space');
      if (type === 'site-section') return this.wrap(await this.sectionView(user, site, id, em), 'site-section');
      return this.wrap(await this.groupView(user, site, id, em), 'site-section-group');
    });
  }

  private wrap<T extends SiteSpaceRow | SectionRow | SectionGroupRow>(view: SiteView<T>, type: StructureItemRow['type']): SiteView<StructureItemRow> {
    return { ...view, value: { type, row: view.value } as StructureItemRow };
  }

  /** The siblings of `item`, in order (each with its position). */
  private async levelOf(
    em: EntityManager,
    site: Site,
    type: string,
    item: SiteSpace | SiteSection | SiteSectionGroup,
  ): Promise<(LevelItem & { position: number })[]> {
    if (type === 'site-space') {
      return (await this.sites.levelSiteSpaces(site.id, (item as SiteSpace).sectionId, em)).map((row) => ({ type, id: row.id, position: row.position }));
    }
    const groupId = type === 'site-section' ? (item as SiteSection).groupId : null;
    if (groupId === null) return this.rootLevel(em, site.id);
    return (await this.sites.sections(site.id, em))
      .filter((section) => section.groupId === groupId)
      .map((section) => ({ type: 'site-section', id: section.id, position: section.position }));
  }

  /** The root level of a site in sections: its ungrouped sections and its groups, in one order. */
  private async rootLevel(em: EntityManager, siteId: string): Promise<(LevelItem & { position: number })[]> {
    const [sections, groups] = await Promise.all([this.sites.sections(siteId, em), this.sites.groups(siteId, em)]);
    return [
      ...sections.filter((section) => section.groupId === null).map((section) => ({ type: 'site-section', id: section.id, position: section.position })),
      ...groups.map((group) => ({ type: 'site-section-group', id: group.id, position: group.position })),
    ].sort(byPosition);
  }

  private async moveInLevel(em: EntityManager, level: LevelItem[], moving: LevelItem, position: { before?: LevelItem; after?: LevelItem }): Promise<void> {
    const order = reorder(level, moving, position);
    if (!order) throw siteError('site.invalid_structure', 'position: must point to another item of the same level of the site structure');
    await this.placeLevel(em, order);
  }

  private async placeLevel(em: EntityManager, order: LevelItem[]): Promise<void> {
    for (const [type, table] of Object.entries(TABLES)) {
      const entries = order.map((item, index) => ({ item, position: (index + 1) * GAP })).filter(({ item }) => item.type === type);
      await this.sites.place(
        table,
        entries.map(({ item }) => item.id),
        entries.map(({ position }) => position),
        em,
      );
    }
  }

  private checkedCondition(condition: string | null): string | null {
    if (condition === null) return null;
    const problem = conditionProblem(condition);
    if (problem) throw siteError('site.invalid_condition', problem);
    return condition;
  }

  private found<T extends { id: string }>(items: T[], id: string, code: 'site.section_not_found', what: string): T {
    const item = items.find((candidate) => candidate.id === id);
    if (!item) throw siteError(code, `${what} ${id} not found`);
    return item;
  }
}

/** A section's segment in its published URLs: none for the default section, served at the site's root. */
function urlPathOf(section: { path: string; isDefault: boolean }): string | null {
  return section.isDefault ? null : section.path;
}

function spaceRow(row: SiteSpaceWithSpace, sectionPath: string | null): SiteSpaceRow {
  return { siteSpace: row, space: row.space, sectionPath };
}

/** Every space a structure shows. */
export function spacesOf(structure: StructureRow): Space[] {
  if (structure.type === 'siteSpaces') return structure.items.map((row) => row.space);
  return structure.items.flatMap((item) => ('group' in item ? item.sections : [item])).flatMap((section) => section.siteSpaces.map((row) => row.space));
}
