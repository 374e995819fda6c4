import { AuditRecorder } from '../../src/common/audit/audit-recorder';
import { AuditService } from '../../src/modules/audit/audit.service';
import { InsightsService } from '../../src/modules/insights/insights.service';
import { InstallationsService } from '../../src/modules/integrations/installations.service';
import { IntegrationsService } from '../../src/modules/integrations/integrations.service';
import { OpenApiSpecsService } from '../../src/modules/openapi-specs/openapi-specs.service';
import { SitesService } from '../../src/modules/sites/sites.service';
import { DataSource } from 'typeorm';
import { addMember, createOrganization, Org, unique } from './support/builders';
import { expectCode } from './support/expect-code';
import { useFastApp } from './support/fast-app';

/** Integrations, OpenAPI specifications, site insights and the audit log, through their services. */
describe('integrations, OpenAPI specs, insights and audit', () => {
  const t = useFastApp();

  describe('integrations', () => {
    const publish = (org: Org, name: string, by = org.admin, overrides: Record<string, unknown> = {}) =>
      t.get(IntegrationsService).publish(by.user, name, {
        runtime: 'v2',
        title: 'Test',
        description: '',
        scopes: [],
        script: 'export default {}',
        organization: org.id,
        visibility: 'public',
        ...overrides,
      } as never);

    it('lets only admins publish, and keeps a name to the organization that took it', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const name = unique('int');
      await expectCode(publish(org, name, editor), 'integration.publish_forbidden');
      expect((await publish(org, name)).value.integration.version).toBe(1);
      expect((await publish(org, name)).value.integration.version).toBe(2);
      const other = await createOrganization(t);
      await expectCode(publish(other, name), 'integration.name_taken');
    });

    it('refuses installing a private integration elsewhere, and installs once per organization', async () => {
      const org = await createOrganization(t);
      const other = await createOrganization(t);
      const privateName = unique('private');
      await publish(org, privateName, org.admin, { visibility: 'private' });
      const installations = t.get(InstallationsService);
      await expectCode(installations.install(other.admin.user, privateName, other.id), 'integration.not_found');
      const publicName = unique('public');
      await publish(org, publicName);
      const first = await installations.install(other.admin.user, publicName, other.id);
      const again = await installations.install(other.admin.user, publicName, other.id);
      expect(again.row.installation.id).toBe(first.row.installation.id);
    });
  });

  describe('OpenAPI specs', () => {
    const text = JSON.stringify({ openapi: '3.0.0', info: { title: 'Pets', version: '1.0.0' }, paths: {} });

    it('needs the create role, refuses an invalid document, and a taken slug', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const specs = t.get(OpenApiSpecsService);
      await expectCode(() => specs.create(editor.membership, { slug: 'pets', source: { text } }), 'openapi.forbidden');
      await expectCode(specs.create(org.admin.membership, { slug: 'pets', source: { text: '{"not": "openapi"}' } }), 'openapi.invalid');
      await specs.create(org.admin.membership, { slug: 'pets', source: { text } });
      await expectCode(specs.create(org.admin.membership, { slug: 'pets', source: { text } }), 'openapi.slug_taken');
      const other = await createOrganization(t);
      await expectCode(specs.get(other.admin.membership, 'pets'), 'openapi.spec_not_found');
    });
  });

  describe('insights', () => {
    const event = (overrides: Record<string, unknown> = {}) => ({
      type: 'page_view',
      session: { visitorId: 'v1', sessionId: 's1', cookies: {}, userAgent: 'Mozilla/5.0', language: 'en', referrer: null },
      location: {
        url: 'https://docs.example.com/guide',
        siteSection: null,
        siteSpace: null,
        siteShareKey: null,
        space: 'space-1',
        revision: null,
        page: 'page-1',
      },
      ...overrides,
    });

    it('stores a batch all or none, and counts what it stored', async () => {
      const org = await createOrganization(t);
      const { site } = await t.get(SitesService).create(org.admin.user, org.admin.membership, { title: 'Docs' });
      const insights = t.get(InsightsService);
      const late = new Date(Date.now() - 6 * 60_000).toISOString();
      await expectCode(insights.track(org.admin.membership, site.id, { events: [event(), event({ timestamp: late })] } as never), 'insights.invalid_event');
      await insights.track(org.admin.membership, site.id, { events: [event(), event({ session: { ...event().session, visitorId: 'v2' } })] } as never);
      const columns = await insights.aggregate(org.admin.membership, site.id, {
        select: [{ column: 'eventsCount' }, { column: 'visitorsCount' }],
        range: 'last24Hours',
      } as never);
      expect(columns).toEqual([
        { column: 'eventsCount', values: [2] },
        { column: 'visitorsCount', values: [2] },
      ]);
    });

    it("answers not found for another organization's site", async () => {
      const org = await createOrganization(t);
      const { site } = await t.get(SitesService).create(org.admin.user, org.admin.membership, { title: 'Docs' });
      const other = await createOrganization(t);
      await expectCode(t.get(InsightsService).track(other.admin.membership, site.id, { events: [event()] } as never), 'insights.site_not_found');
    });
  });

  describe('audit', () => {
    it('records an event with the transaction it describes: rolled back with it, listed to its organization only', async () => {
      const org = await createOrganization(t);
      const recorder = t.get(AuditRecorder);
      const dataSource = t.get(DataSource);
      const record = (action: string) => (em: import('typeorm').EntityManager) =>
        recorder.record(em, { organizationId: org.id, action, target: { type: 'organization', id: org.id } });
      await expect(
        dataSource.transaction(async (em) => {
          await record('organization.updated')(em);
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      const id = await dataSource.transaction(record('organization.updated'));
      const audit = t.get(AuditService);
      const page = await audit.list(org.id, { limit: 10 } as never);
      expect(page.items.map((row) => row.id)).toEqual([id]);
      expect((await audit.list((await createOrganization(t)).id, { limit: 10 } as never)).items).toEqual([]);
      await expectCode(audit.get(org.id, 'not-a-uuid'), 'audit_event.not_found');
    });
  });
});
