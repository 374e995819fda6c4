import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SiteSectionGroup } from './site-section-group.entity';
import { SiteSection } from './site-section.entity';
import { SiteSpace } from './site-space.entity';

/**
 * The writes of a site's structure (site spaces, sections, section groups) and the look-ups they
 * make under the site's lock. Every method takes the write's transaction; reads of whole levels and
 * lists are `SitesRepository`'s.
 */
@Injectable()
export class SiteStructureRepository {
  // --- site spaces ---------------------------------------------------------------------------------

  async insertSiteSpace(row: Omit<SiteSpace, 'customization' | 'createdAt' | 'updatedAt'>, em: EntityManager): Promise<void> {
    await em.insert(SiteSpace, row);
  }

  async updateSiteSpace(id: string, changes: Partial<Omit<SiteSpace, 'customization'>>, em: EntityManager): Promise<void> {
    if (Object.keys(changes).length > 0) await em.update(SiteSpace, { id }, changes);
  }

  async deleteSiteSpace(id: string, em: EntityManager): Promise<void> {
    await em.delete(SiteSpace, { id });
  }

  /** Takes the default off the level `sectionId` (null: the root); two statements, as the partial unique index allows one default per level. */
  async clearDefaultSiteSpace(siteId: string, sectionId: string | null, em: EntityManager): Promise<void> {
    await em.query(`UPDATE site_spaces SET is_default = false WHERE site_id = $1 AND section_id IS NOT DISTINCT FROM $2 AND is_default`, [siteId, sectionId]);
  }

  /** The root level's site spaces move into `sectionId` (a site's first section takes them over). */
  async moveRootSiteSpacesInto(siteId: string, sectionId: string, em: EntityManager): Promise<void> {
    await em.query(`UPDATE site_spaces SET section_id = $2 WHERE site_id = $1 AND section_id IS NULL`, [siteId, sectionId]);
  }

  // --- sections ------------------------------------------------------------------------------------

  findSection(siteId: string, sectionId: string, em: EntityManager): Promise<SiteSection | null> {
    return em.findOneBy(SiteSection, { siteId, id: sectionId });
  }

  sectionPathTaken(siteId: string, path: string, em: EntityManager): Promise<boolean> {
    return em.existsBy(SiteSection, { siteId, path });
  }

  async insertSection(row: Omit<SiteSection, 'customization' | 'createdAt' | 'updatedAt'>, em: EntityManager): Promise<void> {
    await em.insert(SiteSection, row);
  }

  async updateSection(id: string, changes: Partial<Omit<SiteSection, 'customization'>>, em: EntityManager): Promise<void> {
    if (Object.keys(changes).length > 0) await em.update(SiteSection, { id }, changes);
  }

  async deleteSection(id: string, em: EntityManager): Promise<void> {
    await em.delete(SiteSection, { id });
  }

  async clearDefaultSection(siteId: string, em: EntityManager): Promise<void> {
    await em.query(`UPDATE site_sections SET is_default = false WHERE site_id = $1 AND is_default`, [siteId]);
  }

  // --- section groups ------------------------------------------------------------------------------

  findGroup(siteId: string, groupId: string, em: EntityManager): Promise<SiteSectionGroup | null> {
    return em.findOneBy(SiteSectionGroup, { siteId, id: groupId });
  }

  async insertGroup(row: Pick<SiteSectionGroup, 'id' | 'siteId' | 'title' | 'icon' | 'position'>, em: EntityManager): Promise<void> {
    await em.insert(SiteSectionGroup, row);
  }

  async updateGroup(id: string, changes: Partial<Pick<SiteSectionGroup, 'title' | 'icon'>>, em: EntityManager): Promise<void> {
    if (Object.keys(changes).length > 0) await em.update(SiteSectionGroup, { id }, changes);
  }

  async deleteGroup(id: string, em: EntityManager): Promise<void> {
    await em.delete(SiteSectionGroup, { id });
  }
}
