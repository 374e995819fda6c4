import { SiteSectionsService } from '../../src/modules/sites/site-sections.service';
import { SiteSpacesService } from '../../src/modules/sites/site-spaces.service';
import { SitesService } from '../../src/modules/sites/sites.service';
import { addMember, createOrganization, createSpace } from './support/builders';
import { expectCode } from './support/expect-code';
import { useFastApp } from './support/fast-app';

/** Sites and their structure (site spaces, sections), through their services. */
describe('sites', () => {
  const t = useFastApp();

  it('lets only admins create a site, and only with spaces of its own organization', async () => {
    const org = await createOrganization(t);
    const editor = await addMember(t, org, 'edit');
    const sites = t.get(SitesService);
    await expectCode(sites.create(editor.user, editor.membership, { title: 'Docs' }), 'site.forbidden');
    const other = await createOrganization(t);
    const foreign = await createSpace(t, other);
    await expectCode(sites.create(other.admin.user, org.admin.membership, { title: 'Docs', spaces: [foreign.id] }), 'space.not_found');
    await expectCode(
      sites.get(other.admin.membership, (await sites.create(org.admin.user, org.admin.membership, { title: 'Docs' })).site.id),
      'site.not_found',
    );
  });

  it('publishes only a site that shows at least one space', async () => {
    const org = await createOrganization(t);
    const sites = t.get(SitesService);
    const empty = await sites.create(org.admin.user, org.admin.membership, { title: 'Empty' });
    await expectCode(sites.publish(org.admin.membership, empty.site.id), 'site.no_site_spaces');
    const space = await createSpace(t, org);
    const shown = await sites.create(org.admin.user, org.admin.membership, { title: 'Shown', spaces: [space.id] });
    expect((await sites.publish(org.admin.membership, shown.site.id)).site.published).toBe(true);
  });

  it('gives site spaces of like-titled spaces distinct paths, and makes the first the default', async () => {
    const org = await createOrganization(t);
    const [first, second] = [await createSpace(t, org, { title: 'Guide' }), await createSpace(t, org, { title: 'Guide' })];
    const { site } = await t.get(SitesService).create(org.admin.user, org.admin.membership, { title: 'Docs', spaces: [first.id] });
    const added = await t.get(SiteSpacesService).addSiteSpace(org.admin.user, org.admin.membership, site.id, { spaceId: second.id });
    const list = await t.get(SiteSpacesService).listSiteSpaces(org.admin.user, org.admin.membership, site.id, { limit: 10 } as never);
    const rows = list.value.items.map((row) => row.siteSpace);
    expect(new Set(rows.map((row) => row.path)).size).toBe(2);
    expect(rows.find((row) => row.isDefault)?.spaceId).toBe(first.id);
    expect(added.value.siteSpace.isDefault).toBe(false);
  });

  it('moves the root site spaces into the first section, which becomes the default', async () => {
    const org = await createOrganization(t);
    const [shown, sectioned] = [await createSpace(t, org), await createSpace(t, org)];
    const { site } = await t.get(SitesService).create(org.admin.user, org.admin.membership, { title: 'Docs', spaces: [shown.id] });
    const section = await t.get(SiteSectionsService).addSection(org.admin.user, org.admin.membership, site.id, { spaceId: sectioned.id, title: 'Guides' });
    expect(section.value.section.isDefault).toBe(true);
    expect(section.value.siteSpaces.map((row) => row.space.id).sort()).toEqual([shown.id, sectioned.id].sort());
  });

  it('refuses a reader adding a space to a site', async () => {
    const org = await createOrganization(t);
    const reader = await addMember(t, org, 'read');
    const space = await createSpace(t, org);
    const { site } = await t.get(SitesService).create(org.admin.user, org.admin.membership, { title: 'Docs' });
    await expectCode(t.get(SiteSpacesService).addSiteSpace(reader.user, reader.membership, site.id, { spaceId: space.id }), 'site.forbidden');
  });
});
