import { AUDITED_ROUTES, type AuditedRoute } from '../../src/common/audit/audit-catalogue';
import { createOrganization, OrgFixture } from '../support/builders';
import { createTeam, selfSignedCertificatePem } from '../support/org-admin-builders';
import { addSection, createSite, sitePath } from '../support/site-builders';
import { createCollection } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

interface EventRow {
  id: string;
  action: string;
  target_id: string;
  payload: { changes?: { field: string; before?: unknown; after?: unknown }[] };
  xmin: string;
}

/**
 * Issue 28, what an update records and when: `before` and `after` of every non-secret field an
 * update route changes, in each module area (the row the request loaded before writing), and the
 * event committed in the write's own transaction (same `xmin`) for routes whose writes are single
 * statements (`transaction` in the catalogue).
 */
describe('audit: before/after of updates, in the write’s transaction', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t, { title: 'Old org' });
  });
  afterAll(() => t.close());

  const eventOf = async (action: string, targetId: string): Promise<EventRow> => {
    const rows: EventRow[] = await t.dataSource.query(
      `SELECT id, action, target_id, payload, xmin::text AS xmin FROM audit_events WHERE organization_id = $1 AND action = $2 AND target_id = $3`,
      [org.id, action, targetId],
    );
    expect(rows).toHaveLength(1);
    return rows[0];
  };
  const xminOf = async (table: string, id: string): Promise<string> =>
    ((await t.dataSource.query(`SELECT xmin::text AS xmin FROM ${table} WHERE id = $1`, [id])) as { xmin: string }[])[0].xmin;
  const patch = (path: string, body: object) =>
    t.http
      .patch(path)
      .set(...org.admin.auth)
      .send(body);

  describe('before and after, per module area', () => {
    it('organization settings (one statement: the event shares its transaction)', async () => {
      await patch(`/v1/orgs/${org.id}`, { title: 'New org' }).expect(200);
      const event = await eventOf('organization.updated', org.id);
      expect(event.payload.changes).toEqual([{ field: 'title', before: 'Old org', after: 'New org' }]);
      expect(event.xmin).toBe(await xminOf('organizations', org.id));
    });

    it('site, site section, share link and redirect', async () => {
      const site = await createSite(t, org, { title: 'Old site' });
      await patch(sitePath(org, site.id), { title: 'New site' }).expect(200);
      expect((await eventOf('site.updated', site.id)).payload.changes).toEqual([{ field: 'title', before: 'Old site', after: 'New site' }]);

      const section = await addSection(t, org, site.id, { title: 'Old section' });
      await patch(`${sitePath(org, site.id)}/sections/${section.id}`, { title: 'New section' }).expect(200);
      expect((await eventOf('site_section.updated', section.id)).payload.changes).toEqual([{ field: 'title', before: 'Old section', after: 'New section' }]);

      const link = await t.http
        .post(`${sitePath(org, site.id)}/share-links`)
        .set(...org.admin.auth)
        .send({ name: 'Readers' })
        .expect(201);
      await patch(`${sitePath(org, site.id)}/share-links/${link.body.id}`, { name: 'Writers', active: false }).expect(200);
      const linkEvent = await eventOf('site_share_link.updated', link.body.id);
      expect(linkEvent.payload.changes).toEqual([
        { field: 'name', before: 'Readers', after: 'Writers' },
        { field: 'active', before: true, after: false },
      ]);
      expect(JSON.stringify(linkEvent.payload)).not.toContain(link.body.key);

      const redirect = await t.http
        .post(`${sitePath(org, site.id)}/redirects`)
        .set(...org.admin.auth)
        .send({ source: '/old-page', destination: { kind: 'external', url: 'https://example.com/a' } })
        .expect(201);
      await patch(`${sitePath(org, site.id)}/redirects/${redirect.body.id}`, { permanent: true }).expect(200);
      expect((await eventOf('site_redirect.updated', redirect.body.id)).payload.changes).toEqual([{ field: 'permanent', before: false, after: true }]);
    });

    it('team and collection (one statement each: the event shares its transaction)', async () => {
      const team = await createTeam(t, org, { title: 'Old team' });
      await patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'New team' }).expect(200);
      const teamEvent = await eventOf('team.updated', team.id);
      expect(teamEvent.payload.changes).toEqual([{ field: 'title', before: 'Old team', after: 'New team' }]);
      expect(teamEvent.xmin).toBe(await xminOf('teams', team.id));

      const collection = await createCollection(t, org, { title: 'Old collection' });
      await patch(`/v1/collections/${collection.id}`, { title: 'New collection' }).expect(200);
      const collectionEvent = await eventOf('collection.updated', collection.id);
      expect(collectionEvent.payload.changes).toEqual([{ field: 'title', before: 'Old collection', after: 'New collection' }]);
      expect(collectionEvent.xmin).toBe(await xminOf('collections', collection.id));
    });

    it('SAML provider: the label before and after; the certificate named, never copied', async () => {
      const certificate = await selfSignedCertificatePem();
      const created = await t.http
        .post(`/v1/orgs/${org.id}/saml`)
        .set(...org.admin.auth)
        .send({ label: 'Okta', entityID: 'http://www.okta.com/exk1', certificate, ssoURL: 'https://acme.okta.com/app/sso/saml' })
        .expect(201);
      expect((await eventOf('saml_provider.created', created.body.id)).xmin).toBe(await xminOf('saml_providers', created.body.id));
      const other = await selfSignedCertificatePem('other.test');
      await patch(`/v1/orgs/${org.id}/saml/${created.body.id}`, { label: 'Okta EU', certificate: other }).expect(200);
      const event = await eventOf('saml_provider.updated', created.body.id);
      expect(event.payload.changes).toEqual([{ field: 'label', before: 'Okta', after: 'Okta EU' }, { field: 'certificate' }]);
      expect(event.xmin).toBe(await xminOf('saml_providers', created.body.id));
    });

    it('translation settings', async () => {
      const created = await t.http
        .post(`/v1/orgs/${org.id}/translations`)
        .set(...org.admin.auth)
        .send({ title: 'Docs', languages: ['fr'] })
        .expect(201);
      await t.http
        .put(`/v1/orgs/${org.id}/translations/${created.body.id}`)
        .set(...org.admin.auth)
        .send({ title: 'Docs FR' })
        .expect(200);
      const event = await eventOf('translation.updated', created.body.id);
      expect(event.payload.changes).toEqual([{ field: 'title', before: 'Docs', after: 'Docs FR' }]);
      expect(event.xmin).toBe(await xminOf('translation_settings', created.body.id));
    });

    it('a field sent with its current value has no `before` (no change to show)', async () => {
      const team = await createTeam(t, org, { title: 'Same team' });
      await patch(`/v1/orgs/${org.id}/teams/${team.id}`, { title: 'Same team' }).expect(200);
      expect((await eventOf('team.updated', team.id)).payload.changes).toEqual([{ field: 'title', after: 'Same team' }]);
    });
  });

  describe('atomic with the write', () => {
    it('a route that commits no transaction and is not marked `transaction` fails under AUDIT_STRICT instead of recording apart', async () => {
      const route = AUDITED_ROUTES.updateCollectionById as AuditedRoute;
      const collection = await createCollection(t, org, { title: 'Unmarked' });
      delete route.transaction;
      try {
        const res = await patch(`/v1/collections/${collection.id}`, { title: 'Apart' });
        expect(res.status).toBe(500);
      } finally {
        route.transaction = true;
      }
      const rows = await t.dataSource.query(`SELECT 1 FROM audit_events WHERE target_id = $1 AND action = 'collection.updated'`, [collection.id]);
      expect(rows).toHaveLength(0);
    });

    it('a marked route whose handler fails rolls its writes back with its event', async () => {
      const team = await createTeam(t, org, { title: 'Kept team' });
      // An unknown member id: the team is renamed in the request's transaction, then the member check fails.
      const res = await t.http
        .put(`/v1/orgs/${org.id}/teams/${team.id}/members/nobody-${Date.now()}`)
        .set(...org.admin.auth)
        .send({ role: 'member' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      const rows = await t.dataSource.query(`SELECT 1 FROM audit_events WHERE target_id = $1 AND action = 'team.member_added'`, [team.id]);
      expect(rows).toHaveLength(0);
    });
  });
});
