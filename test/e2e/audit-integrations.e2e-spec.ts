import { INTEGRATION_SCOPES } from '../../src/common/access/script-access';
import { IntegrationTokensService } from '../../src/modules/integrations/integration-tokens.service';
import { AuditDeliveryService } from '../../src/modules/audit/audit-delivery.service';
import { AuditSealerService } from '../../src/modules/audit/audit-sealer.service';
import { AuditSignInService } from '../../src/modules/audit/audit-sign-in.service';
import { createOrganization, OrgFixture } from '../support/builders';
import { eventsOfType, publishScript } from '../support/integration-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 28, the audit log beyond the routes: sign-in failures above the lockout recorded in the
 * organization whose token was presented (decision 0064), and the `audit_event` extension event
 * delivered to the installations of integrations that ask for it, through the integration event path.
 */
describe('audit: sign-in failures and delivery to integrations', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'loopback', JOBS_ENABLED: 'true' });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const install = async (name: string, overrides: Record<string, unknown> = {}) => {
    await publishScript(t, org.admin, org.id, name, 'export default { fetch() { return new Response("OK"); } };', {
      scopes: [...INTEGRATION_SCOPES],
      ...overrides,
    });
    const installed = await t.http
      .post(`/v1/integrations/${name}/installations`)
      .set(...org.admin.auth)
      .send({ organization: org.id })
      .expect(201);
    const [{ id: integrationId }] = await t.dataSource.query(`SELECT id FROM integrations WHERE name = $1`, [name]);
    return { installationId: installed.body.id as string, integrationId: integrationId as string };
  };
  const signInEvents = async (): Promise<{ actor_label: string; target_id: string; ip: string; payload: Record<string, unknown> }[]> =>
    t.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND action = 'sign_in.failed_above_lockout'`, [org.id]);
  /** Failures are counted once each response has finished; recordings run off the request path. */
  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.app.get(AuditSignInService).settled();
  };

  describe('sign-in failures above the lockout', () => {
    let expired: string;
    let installationId: string;

    beforeAll(async () => {
      const installed = await install(`lockout-${Date.now().toString(36)}`);
      installationId = installed.installationId;
      [expired] = await t.app.get(IntegrationTokensService).mint(installed.integrationId, installationId);
      await t.dataSource.query(`UPDATE integration_tokens SET expires_at = now() - interval '1 minute' WHERE installation_id = $1`, [installationId]);
    });

    const attempt = (address: string, token: string) => t.http.get('/v1/user').set('X-Forwarded-For', address).set('Authorization', `Bearer ${token}`);

    it('below the lockout, failures with the organization’s expired token record nothing', async () => {
      for (let i = 0; i < 2; i++) expect((await attempt('10.64.0.1', expired)).status).toBe(401);
      await settle();
      expect(await signInEvents()).toEqual([]);
    });

    it('the failure that trips the lockout records one event for the token’s organization; refusals while it lasts add none', async () => {
      for (let i = 0; i < 3; i++) expect((await attempt('10.64.0.2', expired)).status).toBe(401);
      await settle();
      expect((await attempt('10.64.0.2', expired)).status).toBe(429);
      await settle();
      const rows = await signInEvents();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        actor_type: 'system',
        actor_id: 'anonymous',
        actor_label: '10.64.0.2',
        source: 'api',
        target_type: 'integration-installation',
        target_id: installationId,
        ip: '10.64.0.2',
      });
      expect(rows[0].payload).toMatchObject({ tokenKind: 'integration', limit: 3, failures: 3 });
      expect(JSON.stringify(rows[0])).not.toContain(expired);
    });

    it('an address locked out by unknown tokens names no organization: nothing recorded', async () => {
      for (let i = 0; i < 4; i++) await attempt('10.64.0.3', `qit_guess_${i}`);
      await settle();
      expect(await signInEvents()).toHaveLength(1);
    });
  });

  describe('audit_event delivery', () => {
    it('hands sealed events, in chain order and in batches, only to installations whose integration lists audit_event', async () => {
      const listening = `audit-sink-${Date.now().toString(36)}`;
      const deaf = `audit-deaf-${Date.now().toString(36)}`;
      await install(listening, { events: ['audit_event'] });
      await install(deaf);
      const delivery = t.app.get(AuditDeliveryService);
      const sealer = t.app.get(AuditSealerService);
      // The first run places the new subscriber at the head of the chain: it gets what follows.
      await sealer.sealAll();
      await delivery.deliverAll();

      for (const title of ['Renamed once', 'Renamed twice']) {
        await t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send({ title })
          .expect(200);
      }
      await sealer.sealAll();
      await delivery.deliverAll();
      await delivery.deliverAll();

      const delivered = await eventsOfType(t, org.admin, listening, 'audit_event');
      expect(delivered).toHaveLength(1);
      const events = delivered[0].payload.events as { action: string; payload: { changes: unknown[] } }[];
      expect(events.map((event) => event.action)).toEqual(['organization.updated', 'organization.updated']);
      expect(events[1].payload.changes).toEqual([{ field: 'title', before: 'Renamed once', after: 'Renamed twice' }]);
      // Delivered through the integration event path like any event (its trace and status; not a public event type).
      const [{ status }] = await t.dataSource.query(`SELECT status FROM integration_events WHERE id = $1`, [delivered[0].id]);
      expect(status).toBe('success');
      expect(await eventsOfType(t, org.admin, deaf, 'audit_event')).toEqual([]);
    });

    it('refuses an unknown extension event at publish (400)', async () => {
      const res = await t.http
        .post(`/v1/integrations/audit-bad-${Date.now().toString(36)}`)
        .set(...org.admin.auth)
        .send({ runtime: 'v2', title: 'Bad', description: '', scopes: [], script: 'export default {}', organization: org.id, events: ['everything'] });
      expect(res.status).toBe(400);
    });
  });
});
