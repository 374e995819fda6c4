import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { Page, paginate } from '../../common/pagination/paginate';
import { containsPattern } from '../../common/sql/like-pattern';
import { Space } from '../space-model/space.entity';
import { ListSitesQueryDto } from './dto/site.dto';
import { SiteSectionGroup } from './site-section-group.entity';
import { SiteSection } from './site-section.entity';
import { SiteShareLink } from './site-share-link.entity';
import { SiteSpace } from './site-space.entity';
import { Site } from './site.entity';
import { SiteRow } from './site.read-model';

type Raw = Record<string, unknown>;

/**
 * Live count of a site's site spaces whose space is not deleted and still in the site's organization
 * (a transferred space leaves its sites), per row of the page (no N+1).
 */
const SITE_SPACES = `(
  SELECT count(*) FROM site_spaces scs
    JOIN spaces scp ON scp.id = scs.space_id AND scp.deleted_at IS NULL AND scp.organization_id = s.organization_id
   WHERE scs.site_id = s.id)::int`;

export type StructureTable = 'site_spaces' | 'site_sections' | 'site_section_groups';

/** Every query of a site and the things it is built from. */
@Injectable()
export class SitesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private sitesQuery(organizationId: string, manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<Site> {
    return manager.createQueryBuilder(Site, 's').addSelect(SITE_SPACES, 'site_spaces').where('s.organization_id = :organizationId', { organizationId });
  }

  private async readSites(qb: SelectQueryBuilder<Site>): Promise<SiteRow[]> {
    const { entities, raw } = await qb.getRawAndEntities();
    const counts = new Map((raw as Raw[]).map((row) => [row.s_id as string, Number(row.site_spaces)]));
    return entities.map((site) => ({ site, siteSpaces: counts.get(site.id) ?? 0 }));
  }

  async find(organizationId: string, siteId: string, manager?: EntityManager): Promise<SiteRow | null> {
    const [row] = await this.readSites(this.sitesQuery(organizationId, manager).andWhere('s.id = :siteId', { siteId }));
    return row ?? null;
  }

  /** Locks the site row: every change to a site's structure is serialised on it. */
  async lock(organizationId: string, siteId: string, em: EntityManager): Promise<Site | null> {
    return em
      .createQueryBuilder(Site, 's')
      .setLock('pessimistic_write')
      .where('s.id = :siteId AND s.organization_id = :organizationId', { siteId, organizationId })
      .getOne();
  }

  /** The organization's sites, oldest first, filtered by a space they show, a title fragment, their published state. */
  async list(organizationId: string, query: ListSitesQueryDto): Promise<Page<SiteRow>> {
    const qb = this.sitesQuery(organizationId);
    if (query.space !== undefined)
      qb.andWhere('EXISTS (SELECT 1 FROM site_spaces fss WHERE fss.site_id = s.id AND fss.space_id = :space)', { space: query.space });
    if (query.title !== undefined) qb.andWhere('s.title ILIKE :title', { title: containsPattern(query.title) });
    if (query.published !== undefined) qb.andWhere('s.published = :published', { published: query.published });
    const page = await paginate(qb, query, {
      list: 'sites',
      columns: ['s.created_at', 's.id'],
      direction: 'ASC',
      keyOf: (site: Site) => [site.createdAt, site.id],
    });
    const rows = await this.readSitesById(
      organizationId,
      page.items.map((site) => site.id),
    );
    return { ...page, items: page.items.map((site) => rows.get(site.id) ?? { site, siteSpaces: 0 }) };
  }

  private async readSitesById(organizationId: string, ids: string[]): Promise<Map<string, SiteRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.readSites(this.sitesQuery(organizationId).andWhere('s.id IN (:...ids)', { ids }));
    return new Map(rows.map((row) => [row.site.id, row]));
  }

  // --- writes of a site's row ---------------------------------------------------------------------------

  async insertSite(site: Pick<Site, 'id' | 'organizationId' | 'title' | 'createdBy' | 'type' | 'visibility'>, em: EntityManager): Promise<void> {
    await em.insert(Site, site);
  }

  /** Changes columns of the site (never its adaptive schema or customization: `setAdaptiveSchema`, `setCustomization`). */
  async updateSite(siteId: string, changes: Partial<Omit<Site, 'adaptiveSchema' | 'customization'>>, em: EntityManager): Promise<void> {
    if (Object.keys(changes).length > 0) await em.update(Site, { id: siteId }, changes);
  }

  /** Deletes the site; its site spaces, sections, groups and share links go with it (foreign keys). */
  async deleteSite(siteId: string, em: EntityManager): Promise<void> {
    await em.delete(Site, { id: siteId });
  }

  async setAdaptiveSchema(siteId: string, jsonSchema: Record<string, unknown>, updatedAt: Date, em: EntityManager): Promise<void> {
    await em.query(`UPDATE sites SET adaptive_schema = $2::jsonb, adaptive_schema_updated_at = $3 WHERE id = $1`, [
      siteId,
      JSON.stringify(jsonSchema),
      updatedAt,
    ]);
  }

  async setCustomization(siteId: string, settings: Record<string, unknown>, em: EntityManager): Promise<void> {
    await em.query(`UPDATE sites SET customization = $2::jsonb, updated_at = now() WHERE id = $1`, [siteId, JSON.stringify(settings)]);
  }

  /** Whether the site is published, as `em`'s transaction sees it (false for a site deleted by it). */
  async isPublished(siteId: string, em: EntityManager): Promise<boolean> {
    const [row]: { published: boolean }[] = await em.query(`SELECT published FROM sites WHERE id = $1`, [siteId]);
    return row?.published ?? false;
  }

  /** The ids of the published sites showing the space, in id order. */
  async publishedSitesShowing(spaceId: string, em: EntityManager): Promise<string[]> {
    const rows: { id: string }[] = await em.query(
      `SELECT DISTINCT s.id FROM site_spaces ss JOIN sites s ON s.id = ss.site_id WHERE ss.space_id = $1 AND s.published ORDER BY s.id`,
      [spaceId],
    );
    return rows.map((row) => row.id);
  }

  // --- site spaces ---------------------------------------------------------------------------------

  /**
   * Site spaces of a site with their spaces; those whose space is deleted, or was transferred to
   * another organization, are left out (they show nothing).
   */
  siteSpacesQuery(siteId: string, manager: EntityManager = this.dataSource.manager): SelectQueryBuilder<SiteSpace> {
    return manager
      .createQueryBuilder(SiteSpace, 'ss')
      .innerJoinAndMapOne(
        'ss.space',
        Space,
        'sp',
        'sp.id = ss.space_id AND sp.deleted_at IS NULL AND sp.organization_id = (SELECT sso.organization_id FROM sites sso WHERE sso.id = ss.site_id)',
      )
      .where('ss.site_id = :siteId', { siteId });
  }

  async siteSpaces(siteId: string, manager?: EntityManager, sectionIds?: (string | null)[]): Promise<(SiteSpace & { space: Space })[]> {
    const qb = this.siteSpacesQuery(siteId, manager).orderBy('ss.position').addOrderBy('ss.id');
    if (sectionIds) {
      const named = sectionIds.filter((id): id is string => id !== null);
      const root = sectionIds.includes(null);
      if (named.length === 0 && !root) return [];
      qb.andWhere(`(${[named.length > 0 ? 'ss.section_id IN (:...named)' : '', root ? 'ss.section_id IS NULL' : ''].filter(Boolean).join(' OR ')})`, { named });
    }
    return (await qb.getMany()) as (SiteSpace & { space: Space })[];
  }

  async listSiteSpaces(siteId: string, query: { page?: string; limit: number; default?: boolean }): Promise<Page<SiteSpace & { space: Space }>> {
    const qb = this.siteSpacesQuery(siteId);
    if (query.default !== undefined) qb.andWhere('ss.is_default = :isDefault', { isDefault: query.default });
    return paginate(qb, query, {
      list: 'site-spaces',
      columns: ['ss.created_at', 'ss.id'],
      direction: 'ASC',
      keyOf: (row: SiteSpace) => [row.createdAt, row.id],
    }) as Promise<Page<SiteSpace & { space: Space }>>;
  }

  async findSiteSpace(siteId: string, siteSpaceId: string, manager?: EntityManager): Promise<(SiteSpace & { space: Space }) | null> {
    return (await this.siteSpacesQuery(siteId, manager).andWhere('ss.id = :siteSpaceId', { siteSpaceId }).getOne()) as (SiteSpace & { space: Space }) | null;
  }

  /** A space a site is about to show (one the caller has just created, in `em`'s transaction). */
  spaceById(spaceId: string, em: EntityManager): Promise<Space> {
    return em.findOneByOrFail(Space, { id: spaceId });
  }

  /** The raw row, even when its space is deleted (moves and deletes must still find it). */
  findSiteSpaceRow(siteId: string, siteSpaceId: string, em: EntityManager): Promise<SiteSpace | null> {
    return em.findOneBy(SiteSpace, { siteId, id: siteSpaceId });
  }

  /** Sets a site space's customization overrides (null: none, it shows the site's). */
  async setSiteSpaceCustomization(siteSpaceId: string, overrides: Record<string, unknown> | null, em: EntityManager): Promise<void> {
    await em.query(`UPDATE site_spaces SET customization = $2::jsonb WHERE id = $1`, [siteSpaceId, overrides === null ? null : JSON.stringify(overrides)]);
  }

  /** Site spaces of one level (a section, or the root when `sectionId` is null), in order. */
  levelSiteSpaces(siteId: string, sectionId: string | null, em: EntityManager): Promise<SiteSpace[]> {
    return em
      .createQueryBuilder(SiteSpace, 'ss')
      .where('ss.site_id = :siteId', { siteId })
      .andWhere(sectionId === null ? 'ss.section_id IS NULL' : 'ss.section_id = :sectionId', { sectionId })
      .orderBy('ss.position')
      .addOrderBy('ss.id')
      .getMany();
  }

  async pathsInLevel(siteId: string, sectionId: string | null, em: EntityManager): Promise<Set<string>> {
    return new Set((await this.levelSiteSpaces(siteId, sectionId, em)).map((row) => row.path));
  }

  // --- sections and groups ---------------------------------------------------------------------------

  sections(siteId: string, manager: EntityManager = this.dataSource.manager): Promise<SiteSection[]> {
    return manager.createQueryBuilder(SiteSection, 'sec').where('sec.site_id = :siteId', { siteId }).orderBy('sec.position').addOrderBy('sec.id').getMany();
  }

  groups(siteId: string, manager: EntityManager = this.dataSource.manager): Promise<SiteSectionGroup[]> {
    return manager.createQueryBuilder(SiteSectionGroup, 'g').where('g.site_id = :siteId', { siteId }).orderBy('g.position').addOrderBy('g.id').getMany();
  }

  listSections(siteId: string, query: { page?: string; limit: number }): Promise<Page<SiteSection>> {
    const qb = this.dataSource.manager.createQueryBuilder(SiteSection, 'sec').where('sec.site_id = :siteId', { siteId });
    return paginate(qb, query, {
      list: 'site-sections',
      columns: ['sec.created_at', 'sec.id'],
      direction: 'ASC',
      keyOf: (row: SiteSection) => [row.createdAt, row.id],
    });
  }

  listGroups(siteId: string, query: { page?: string; limit: number }): Promise<Page<SiteSectionGroup>> {
    const qb = this.dataSource.manager.createQueryBuilder(SiteSectionGroup, 'g').where('g.site_id = :siteId', { siteId });
    return paginate(qb, query, {
      list: 'site-section-groups',
      columns: ['g.created_at', 'g.id'],
      direction: 'ASC',
      keyOf: (row: SiteSectionGroup) => [row.createdAt, row.id],
    });
  }

  /** Gives the rows of `ids` the positions 1024, 2048… of `order` (one statement per table). */
  async place(table: StructureTable, ids: string[], positions: number[], em: EntityManager): Promise<void> {
    if (ids.length === 0) return;
    await em.query(`UPDATE ${table} t SET position = o.position FROM unnest($1::text[], $2::int[]) o(id, position) WHERE t.id = o.id`, [ids, positions]);
  }

  // --- share links -------------------------------------------------------------------------------------

  listShareLinks(siteId: string, query: { page?: string; limit: number; search?: string }): Promise<Page<SiteShareLink>> {
    const qb = this.dataSource.manager.createQueryBuilder(SiteShareLink, 'l').where('l.site_id = :siteId', { siteId });
    if (query.search !== undefined) qb.andWhere('l.name ILIKE :search', { search: containsPattern(query.search) });
    return paginate(qb, query, {
      list: 'site-share-links',
      columns: ['l.created_at', 'l.id'],
      direction: 'ASC',
      keyOf: (row: SiteShareLink) => [row.createdAt, row.id],
    });
  }

  findShareLink(siteId: string, linkId: string, em: EntityManager): Promise<SiteShareLink | null> {
    return em.findOneBy(SiteShareLink, { siteId, id: linkId });
  }

  /** A new active share link; the row as stored. */
  async insertShareLink(link: Pick<SiteShareLink, 'id' | 'siteId' | 'name' | 'key'>, em: EntityManager): Promise<SiteShareLink> {
    await em.insert(SiteShareLink, { ...link, active: true });
    return em.findOneByOrFail(SiteShareLink, { id: link.id });
  }

  /** Changes the link's name or state; the row as stored. */
  async updateShareLink(linkId: string, changes: Partial<Pick<SiteShareLink, 'name' | 'active'>>, em: EntityManager): Promise<SiteShareLink> {
    if (Object.keys(changes).length > 0) await em.update(SiteShareLink, { id: linkId }, changes);
    return em.findOneByOrFail(SiteShareLink, { id: linkId });
  }

  /** False when the site has no such link. */
  async deleteShareLink(siteId: string, linkId: string, em: EntityManager): Promise<boolean> {
    const { affected } = await em.delete(SiteShareLink, { siteId, id: linkId });
    return !!affected;
  }

  /** True when `key` opens `site`: an active share link of it. */
  async shareKeyOpens(siteId: string, key: string): Promise<boolean> {
    return this.dataSource.manager.existsBy(SiteShareLink, { siteId, key, active: true });
  }
}
