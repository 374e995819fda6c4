import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organization's default site (`defaultContent`, set by `updateOrganizationById`): a site of that
 * organization, cleared when the site is deleted. Values that name no site are cleared first.
 */
export class OrganizationDefaultSite1800000290000 implements MigrationInterface {
  name = 'OrganizationDefaultSite1800000290000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE organizations o SET default_site_id = NULL
                    WHERE default_site_id IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM sites s WHERE s.id = o.default_site_id AND s.organization_id = o.id)`);
    await db.query(`ALTER TABLE organizations ADD CONSTRAINT organizations_default_site_fk
                    FOREIGN KEY (default_site_id) REFERENCES sites(id) ON DELETE SET NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE organizations DROP CONSTRAINT organizations_default_site_fk`);
  }
}
