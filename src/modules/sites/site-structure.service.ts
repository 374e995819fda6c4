import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { accessError } from '../access/access.errors';
import { SpaceAccessService } from '../access/space-access.service';
import type { Membership } from '../organizations/membership.entity';
import type { Space } from '../space-model/space.entity';
import type { User } from '../users/user.entity';
import { conditionProblem } from './adaptive-content';
import { SortStructureDto } from './dto/structure.dto';
import { SiteSectionGroup } from './site-section-group.entity';
import { SiteSection } from './site-section.entity';
import { SiteSpace } from './site-space.entity';
import { siteError } from './site.errors';
import type { Site } from './site.entity';
import type { SectionGroupRow, SectionRow, SiteSpaceRow, SiteView, StructureRow } from './site.read-model';
import { SiteStructureRepository } from './site-structure.repository';
import { SiteWrites } from './site-writes';
import { SitesRepository, StructureTable } from './sites.repository';
import { LevelItem, reorder, slugOf, uniquePath } from './structure-order';

export type SiteSpaceWithSpace = SiteSpace & { space: Space };
export type StructureItemRow =
  { type: 'site-space'; row: SiteSpaceRow } | { type: 'site-section'; row: SectionRow } | { type: 'site-section-group'; row: SectionGroupRow };

/** Positions are kept with gaps, so most moves and inserts touch one row. */
export const GAP = 1024;
const TABLES: Record<string, StructureTable> = { 'site-space': 'site_spaces', 'site-section': 'site_sections', 'site-section-group': 'site_section_groups' };
const byPosition = (a: { position: number; id: string }, b: { position: number; id: string }) =>
  a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * What a site is built from: site spaces, sections and section groups, their kept order and the
 * invariants of their defaults (one default site space per level; one default section while the
 * site has sections). This service holds what the site-space and section routes share (reads, views,
 * look-ups, defaults, the kept order); their own rules are `SiteSpacesService` and
 * `SiteSectionsService`. Every write runs under the site row's lock (`SiteWrites.run`).
 */
@Injectable()
export class SiteStructureService {
  constructor(
    private readonly sites: SitesRepository,
    private readonly rows: SiteStructureRepository,
    private readonly writes: SiteWrites,
    private readonly access: SpaceAccessService,
  ) {}

  // --- reading ---------------------------------------------------------------------------------------

  /** The site's tree in order: sections and groups at the root when it has sections, else its site spaces. */
  async structure(site: Site, em?: EntityManager): Promise<StructureRow> {
    // In a write's transaction, one statement at a time on its one connection; otherwise side by side on the pool.
    const [sections, groups, siteSpaces] = em
      ? [await this.sites.sections(site.id, em), await this.sites.groups(site.id, em), await this.sites.siteSpaces(site.id, em)]
      : await Promise.all([this.sites.sections(site.id), this.sites.groups(site.id), this.sites.siteSpaces(site.id)]);
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

  async getStructure(user: User, caller: Membership, siteId: string, shareKey?: string): Promise<SiteView<StructureRow>> {
    const site = await this.writes.read(caller, siteId);
    const structure = await this.structure(site);
    return this.view(user, site, structure, spacesOf(structure), shareKey);
  }

  async sectionRows(siteId: string, sections: SiteSection[], em?: EntityManager): Promise<SectionRow[]> {
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

  // --- look-ups and views shared by the routes ---------------------------------------------------------

  /** The space to show, which the caller must be able to view, in the site's organization (else 404). */
  async viewableSpace(user: User, caller: Membership, spaceId: string): Promise<Space> {
    const { space } = await this.access.require(user, spaceId, 'view');
    if (space.organizationId !== caller.organizationId) throw accessError('space.not_found', `Space ${spaceId} not found`);
    return space;
  }

  /** Adds `space` at the end of a level; the first site space of a level is its default. Returns the new id. */
  async insertSiteSpace(em: EntityManager, siteId: string, sectionId: string | null, space: Space, pathBase?: string): Promise<string> {
    const level = await this.sites.levelSiteSpaces(siteId, sectionId, em);
    const id = newId();
    await this.rows.insertSiteSpace(
      {
        id,
        siteId,
        sectionId,
        spaceId: space.id,
        path: uniquePath(pathBase ?? slugOf(space.title, 'space'), new Set(level.map((row) => row.path))),
        condition: null,
        isDefault: !level.some((row) => row.isDefault),
        position: (level.length > 0 ? Math.max(...level.map((row) => row.position)) : 0) + GAP,
      },
      em,
    );
    return id;
  }

  async siteSpaceView(user: User, site: Site, siteSpaceId: string, em: EntityManager): Promise<SiteView<SiteSpaceRow>> {
    const row = await this.sites.findSiteSpace(site.id, siteSpaceId, em);
    if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
    const section = row.sectionId ? await this.rows.findSection(site.id, row.sectionId, em) : null;
    const value = spaceRow(row, section ? urlPathOf(section) : null);
    return this.view(user, site, value, [value.space]);
  }

  async siteSpaceOf(em: EntityManager, siteId: string, siteSpaceId: string): Promise<SiteSpace> {
    const row = await this.sites.findSiteSpaceRow(siteId, siteSpaceId, em);
    if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
    return row;
  }

  async sectionView(user: User, site: Site, sectionId: string, em: EntityManager): Promise<SiteView<SectionRow>> {
    const section = await this.sectionOf(em, site.id, sectionId);
    const [row] = await this.sectionRows(site.id, [section], em);
    return this.view(
      user,
      site,
      row,
      row.siteSpaces.map((s) => s.space),
    );
  }

  async sectionOf(em: EntityManager, siteId: string, sectionId: string): Promise<SiteSection> {
    const section = await this.rows.findSection(siteId, sectionId, em);
    if (!section) throw siteError('site.section_not_found', `Section ${sectionId} not found`);
    return section;
  }

  async groupOf(em: EntityManager, siteId: string, groupId: string): Promise<SiteSectionGroup> {
    const group = await this.rows.findGroup(siteId, groupId, em);
    if (!group) throw siteError('site.section_group_not_found', `Section group ${groupId} not found`);
    return group;
  }

  async groupView(user: User, site: Site, groupId: string, em: EntityManager): Promise<SiteView<SectionGroupRow>> {
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
    await this.rows.clearDefaultSiteSpace(siteId, sectionId, em);
    await this.rows.updateSiteSpace(row.id, { isDefault: true }, em);
  }

  async makeDefaultSection(em: EntityManager, siteId: string, sectionId: string): Promise<void> {
    const section = await this.sectionOf(em, siteId, sectionId);
    if (section.isDefault) return;
    await this.rows.clearDefaultSection(siteId, em);
    await this.rows.updateSection(section.id, { isDefault: true }, em);
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
  async levelOf(em: EntityManager, site: Site, type: string, item: SiteSpace | SiteSection | SiteSectionGroup): Promise<(LevelItem & { position: number })[]> {
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
  async rootLevel(em: EntityManager, siteId: string): Promise<(LevelItem & { position: number })[]> {
    const sections = await this.sites.sections(siteId, em);
    const groups = await this.sites.groups(siteId, em);
    return [
      ...sections.filter((section) => section.groupId === null).map((section) => ({ type: 'site-section', id: section.id, position: section.position })),
      ...groups.map((group) => ({ type: 'site-section-group', id: group.id, position: group.position })),
    ].sort(byPosition);
  }

  /**
   * Moves a site space or a section among the siblings of its level, right before or after the one
   * named by id (`moveSiteSpace`, `moveSection`; `sortSiteStructure` moves any item through `moveInLevel`).
   */
  async moveAmongSiblings(
    em: EntityManager,
    site: Site,
    type: 'site-space' | 'site-section',
    item: SiteSpace | SiteSection,
    position: { before?: string; after?: string },
  ): Promise<void> {
    const pointer = (id?: string) => (id !== undefined ? { type, id } : undefined);
    await this.moveInLevel(
      em,
      await this.levelOf(em, site, type, item),
      { type, id: item.id },
      { before: pointer(position.before), after: pointer(position.after) },
    );
  }

  async moveInLevel(em: EntityManager, level: LevelItem[], moving: LevelItem, position: { before?: LevelItem; after?: LevelItem }): Promise<void> {
    const order = reorder(level, moving, position);
    if (!order) throw siteError('site.invalid_structure', 'position: must point to another item of the same level of the site structure');
    await this.placeLevel(em, order);
  }

  async placeLevel(em: EntityManager, order: LevelItem[]): Promise<void> {
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

  checkedCondition(condition: string | null): string | null {
    if (condition === null) return null;
    const problem = conditionProblem(condition);
    if (problem) throw siteError('site.invalid_condition', problem);
    return condition;
  }

  found<T extends { id: string }>(items: T[], id: string, code: 'site.section_not_found', what: string): T {
    const item = items.find((candidate) => candidate.id === id);
    if (!item) throw siteError(code, `${what} ${id} not found`);
    return item;
  }
}

/** A section's segment in its published URLs: none for the default section, served at the site's root. */
export function urlPathOf(section: { path: string; isDefault: boolean }): string | null {
  return section.isDefault ? null : section.path;
}

export function spaceRow(row: SiteSpaceWithSpace, sectionPath: string | null): SiteSpaceRow {
  return { siteSpace: row, space: row.space, sectionPath };
}

/** Every space a structure shows. */
export function spacesOf(structure: StructureRow): Space[] {
  if (structure.type === 'siteSpaces') return structure.items.map((row) => row.space);
  return structure.items.flatMap((item) => ('group' in item ? item.sections : [item])).flatMap((section) => section.siteSpaces.map((row) => row.space));
}
