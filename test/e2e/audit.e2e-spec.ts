import { auditScope, type AuditScope } from '../../src/common/audit/audit.context';
import { uuidv7, uuidv7Time } from '../../src/common/audit/uuid7';
import { AuditRecorder, SET_TARGET } from '../../src/common/audit/audit-recorder';
import { INTEGRATION_SCOPES } from '../../src/common/access/script-access';
import { IntegrationTokensService } from '../../src/modules/integrations/integration-tokens.service';
import { AuditPartitionsService } from '../../src/modules/audit/audit-partitions.service';
import { AuditSealerService } from '../../src/modules/audit/audit-sealer.service';
import { QUEUE_VACUUM_AFTER, sealOrganization, sealQueued } from '../../src/modules/audit/audit-chain';
import { Actor, addMember, createOrganization, createUser, OrgFixture } from '../support/builders';
import { auditEvents } from '../support/audit-events';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { TEST_DATABASE_URL } from '../support/database';
import { eventsOfType, publishScript } from '../support/integration-fixtures';
import { runCli } from '../support/run-cli';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { AUDITED_ROUTES, type AuditedRoute } from '../../src/common/audit/audit-catalogue';
import { createTeam, selfSignedCertificatePem } from '../support/org-admin-builders';
import { addSection, createSite, sitePath } from '../support/site-builders';
import { declaredRoutes } from '../support/route-declarations';
import { eventually } from '../support/server-process';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { queryPreparedGeneric } from '../../src/database/prepared-query';
import { AuditDeliveryService } from '../../src/modules/audit/audit-delivery.service';
import { AuditSignInService } from '../../src/modules/audit/audit-sign-in.service';

/** A node of `EXPLAIN (FORMAT JSON)`: the fields the tests read. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

describe('audit log (issue 28)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let member: Actor;
  let reader: Actor;
  let other: OrgFixture;

  const events = (organizationId: string, where?: string, values?: unknown[]) => auditEvents(t, organizationId, where, values);
  const count = async (organizationId: string) => (await events(organizationId)).length;
  const verify = async (organizationId: string) =>
    runCli(['audit:verify', '--org', organizationId], { DATABASE_URL: process.env[TEST_DATABASE_URL], LOG_LEVEL: 'silent' });

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    member = await addMember(t, org, 'admin', { name: 'Ada Admin' });
    reader = await addMember(t, org, 'read');
    other = await createOrganization(t);
  });
  afterAll(() => t.close());

  describe('recording', () => {
    it('space PATCH: one event in the transaction, with the caller, source, target and before/after of the fields it changed', async () => {
      const space = await createSpace(t, org, { title: 'Old title' });
      const res = await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...member.auth)
        .set('User-Agent', 'audit-test/1.0')
        .set('X-Forwarded-For', '203.0.113.7')
        .send({ title: 'New title' })
        .expect(200);
      const [event] = await events(org.id, `target_id = $2`, [space.id]);
      expect(event).toMatchObject({
        action: 'space.updated',
        actor_type: 'user',
        actor_id: member.user.id,
        source: 'api',
        target_type: 'space',
        target_id: space.id,
        target_label: 'Old title',
        correlation_id: res.headers['x-request-id'],
      });
      expect(event.payload).toMatchObject({ changes: [{ field: 'title', before: 'Old title', after: 'New title' }], userAgent: 'audit-test/1.0' });
      // No proxy trusted: the socket's address, whatever X-Forwarded-For claims.
      expect(event.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      expect(event.payload.ip).toBe(event.ip);
      expect(await events(org.id, `target_id = $2`, [space.id])).toHaveLength(1);
    });

    it('comment post: the created comment is the target; its body is named, never copied', async () => {
      const space = await createSpace(t, org);
      const res = await t.http
        .post(`/v1/spaces/${space.id}/comments`)
        .set(...member.auth)
        .send({ body: { markdown: 'a secret opinion' } });
      expect(res.status).toBe(200);
      const rows = await events(org.id, `action = 'comment.created' AND target_id = $2`, [res.body.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_id: member.user.id, target_type: 'comment' });
      expect(JSON.stringify(rows[0].payload)).not.toContain('secret opinion');
      expect(rows[0].payload.changes).toEqual([{ field: 'body' }]);
    });

    it('comment resolve and reopen are actions of their own when they change its state; another edit is an update', async () => {
      const space = await createSpace(t, org);
      const comment = (
        await t.http
          .post(`/v1/spaces/${space.id}/comments`)
          .set(...member.auth)
          .send({ body: { markdown: 'Look' } })
          .expect(200)
      ).body as { id: string };
      const update = (body: Record<string, unknown>) =>
        t.http
          .put(`/v1/spaces/${space.id}/comments/${comment.id}`)
          .set(...member.auth)
          .send(body)
          .expect(200);
      await update({ resolved: true });
      await update({ resolved: true }); // resolved already: an update, not a second resolution
      await update({ resolved: false });
      await update({ body: { markdown: 'Look again' } });
      const rows = await events(org.id, `target_id = $2 AND action <> 'comment.created'`, [comment.id]);
      expect(rows.map(({ action, actor_id, source, target_type, payload }) => ({ action, actor_id, source, target_type, changes: payload.changes }))).toEqual([
        {
          action: 'comment.resolved',
          actor_id: member.user.id,
          source: 'api',
          target_type: 'comment',
          changes: [{ field: 'resolved', after: true }],
        },
        { action: 'comment.updated', actor_id: member.user.id, source: 'api', target_type: 'comment', changes: [{ field: 'resolved', after: true }] },
        {
          action: 'comment.reopened',
          actor_id: member.user.id,
          source: 'api',
          target_type: 'comment',
          changes: [{ field: 'resolved', after: false }],
        },
        { action: 'comment.updated', actor_id: member.user.id, source: 'api', target_type: 'comment', changes: [{ field: 'body' }] },
      ]);
      const actions = (
        await t.http
          .get(`/v1/orgs/${org.id}/audit-event-actions`)
          .set(...member.auth)
          .expect(200)
      ).body.items as { id: string; label: string }[];
      expect(actions).toEqual(expect.arrayContaining([{ object: 'audit-event-action', id: 'comment.resolved', label: 'Comment resolved' }]));
    });

    it('change-request authoring: create and update are each one event on the change request', async () => {
      const space = await createSpace(t, org);
      const created = await t.http
        .post(`/v1/spaces/${space.id}/change-requests`)
        .set(...member.auth)
        .send({ subject: 'Fix typos' });
      expect(created.status).toBeLessThan(300);
      const changeRequestId = created.body.id as string;
      await t.http
        .patch(`/v1/spaces/${space.id}/change-requests/${changeRequestId}`)
        .set(...member.auth)
        .send({ subject: 'Fix more typos' })
        .expect(200);
      const rows = await events(org.id, `target_id = $2`, [changeRequestId]);
      expect(rows.map((row) => row.action)).toEqual(['change_request.created', 'change_request.updated']);
      expect(rows[1].payload.changes).toEqual([{ field: 'subject', before: 'Fix typos', after: 'Fix more typos' }]);
    });

    it('member role: the member is the target, the admin the actor', async () => {
      const someone = await addMember(t, org, 'read');
      await t.http
        .patch(`/v1/orgs/${org.id}/members/${someone.user.id}`)
        .set(...org.admin.auth)
        .send({ role: 'edit' })
        .expect(200);
      const rows = await events(org.id, `action = 'member.role_updated' AND target_id = $2`, [someone.user.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_id: org.admin.user.id, target_type: 'user' });
      expect(rows[0].payload.changes).toEqual([{ field: 'role', before: 'read', after: 'edit' }]);
    });

    it('invitations: the organization is the target of a batch, with who joined and who was invited; the invitation of its accept and decline', async () => {
      const fixture = await createOrganization(t);
      const existing = await createUser(t, { email: `invitee-${Date.now().toString(36)}@example.com` });
      const declining = await createUser(t, { email: `decliner-${Date.now().toString(36)}@example.com` });
      const fresh = `fresh-${Date.now().toString(36)}@example.com`;
      const res = await t.http
        .post(`/v1/orgs/${fixture.id}/invites`)
        .set(...fixture.admin.auth)
        .send({ emails: [fresh, existing.user.email, declining.user.email], role: 'edit' })
        .expect(200);
      const [created] = await events(fixture.id, `action = 'invite.created'`);
      expect(created).toMatchObject({ actor_type: 'user', actor_id: fixture.admin.user.id, source: 'api', target_type: 'organization', target_id: fixture.id });
      expect(created.payload).toMatchObject({ addedUserIds: res.body.users, invitedUserIds: [existing.user.id, declining.user.id] });
      expect(res.body.users).toHaveLength(1);
      expect(created.payload.changes).toEqual([{ field: 'emails' }, { field: 'role', after: 'edit' }]);

      const invitation = async (invitee: Actor) =>
        (
          (
            await t.http
              .get('/v1/user/invites')
              .set(...invitee.auth)
              .expect(200)
          ).body.items as { id: string }[]
        )[0].id;
      const accepted = await invitation(existing);
      await t.http
        .post(`/v1/user/invites/${accepted}/accept`)
        .set(...existing.auth)
        .expect(200);
      const declined = await invitation(declining);
      await t.http
        .delete(`/v1/user/invites/${declined}`)
        .set(...declining.auth)
        .expect(204);
      expect(await events(fixture.id, `action IN ('invite.accepted', 'invite.declined')`)).toEqual([
        expect.objectContaining({ action: 'invite.accepted', actor_id: existing.user.id, target_type: 'invite', target_id: accepted }),
        expect.objectContaining({ action: 'invite.declined', actor_id: declining.user.id, target_type: 'invite', target_id: declined }),
      ]);
    });

    it('an integration script token: the installation is the actor, `integration` the source', async () => {
      const name = `audit-${Date.now().toString(36)}`;
      await publishScript(t, org.admin, org.id, name, 'export default { fetch() { return new Response("OK"); } };', { scopes: [...INTEGRATION_SCOPES] });
      const installed = await t.http
        .post(`/v1/integrations/${name}/installations`)
        .set(...org.admin.auth)
        .send({ organization: org.id })
        .expect(201);
      const installationId = installed.body.id as string;
      await t.dataSource.query(`UPDATE integration_installations SET granted_scopes = $2, space_selection = 'all' WHERE id = $1`, [
        installationId,
        JSON.stringify(INTEGRATION_SCOPES),
      ]);
      const [{ id: integrationId }] = await t.dataSource.query(`SELECT id FROM integrations WHERE name = $1`, [name]);
      const [token] = await t.app.get(IntegrationTokensService).mint(integrationId, installationId);
      // A script configures its own installation.
      const res = await t.http
        .patch(`/v1/integrations/${name}/installations/${installationId}`)
        .set('Authorization', `Bearer ${token}`)
        .send({ configuration: {} });
      expect(res.status).toBe(200);
      const rows = await events(org.id, `action = 'integration_installation.updated' AND target_id = $2`, [installationId]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ actor_type: 'installation', actor_id: installationId, source: 'integration', target_type: 'integration-installation' });
      // The installing admin's own call is a user's, from the API.
      const [install] = await events(org.id, `action = 'integration_installation.created'`);
      expect(install).toMatchObject({ actor_type: 'user', actor_id: org.admin.user.id, source: 'api', target_id: installationId });
    });

    it('nothing is recorded for a refused (403, 404) or invalid (400) request', async () => {
      const space = await createSpace(t, org);
      const before = await count(org.id);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...reader.auth)
          .send({ title: 'x' }),
        403,
      );
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...other.admin.auth)
          .send({ title: 'x' }),
        404,
      );
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...org.admin.auth)
          .send({ title: 42 }),
        400,
      );
      expectErrorEnvelope(
        await t.http
          .post(`/v1/spaces/${space.id}/comments`)
          .set(...member.auth)
          .send({}),
        400,
      );
      expect(await count(org.id)).toBe(before);
    });

    it('a rolled-back transaction leaves no event', async () => {
      const space = await createSpace(t, org);
      const before = await count(org.id);
      const scope: AuditScope = {
        request: { params: { spaceId: space.id, organizationId: org.id }, body: { title: 'Never' }, method: 'PATCH' } as never,
        route: { action: 'space.updated', target: 'space', id: 'spaceId' },
        operationId: 'updateSpaceById',
        actor: { type: 'user', id: member.user.id },
        source: 'api',
        correlationId: 'rollback-test',
        ip: null,
        userAgent: null,
      };
      await expect(
        auditScope.run(scope, () =>
          t.dataSource.transaction(async (em) => {
            await em.query(`SELECT 1`);
            await em.query(`SELECT 1 / 0`);
          }),
        ),
      ).rejects.toThrow();
      expect(await count(org.id)).toBe(before);
      // The same scope committing records the event: the test above can fail.
      await auditScope.run({ ...scope }, () => t.dataSource.transaction((em) => em.query(`SELECT 1`)));
      expect(await count(org.id)).toBe(before + 1);
    });

    it('an event recorded with the COMMIT: its failure rolls the change back; a savepoint rolled back keeps it; a ROLLBACK drops it', async () => {
      const recorder = t.app.get(AuditRecorder);
      const space = await createSpace(t, org);
      const title = async () => ((await t.dataSource.query(`SELECT title FROM spaces WHERE id = $1`, [space.id])) as { title: string }[])[0].title;
      const original = await title();
      const before = await count(org.id);
      const event = (details: Record<string, unknown> = {}, causedByEventId?: string) => ({
        organizationId: org.id,
        action: 'space.updated',
        target: { type: 'space', id: space.id },
        details,
        causedByEventId,
      });

      // The insert fails with the COMMIT it travels with (not a uuid): the change it recorded is gone too.
      await expect(
        t.dataSource.transaction(async (em) => {
          await em.query(`UPDATE spaces SET title = 'Lost' WHERE id = $1`, [space.id]);
          await recorder.record(em, event({}, 'not-a-uuid'));
        }),
      ).rejects.toThrow();
      expect(await title()).toBe(original);
      expect(await count(org.id)).toBe(before);

      // A savepoint rolled back after the event leaves it; quotes and backslashes arrive as sent.
      const tricky = `it's \\ a "test"; DROP TABLE spaces; --`;
      await t.dataSource.transaction(async (em) => {
        await recorder.record(em, event({ note: tricky }));
        await em.transaction((inner) => inner.query(`SELECT 1 / 0`)).catch(() => undefined);
      });
      const recorded = await events(org.id, `payload->>'note' IS NOT NULL`);
      expect(recorded).toHaveLength(1);
      expect(recorded[0].payload.note).toBe(tricky);

      // A ROLLBACK takes the waiting insert with it, and the runner answers as before afterwards.
      await t.dataSource
        .transaction(async (em) => {
          await recorder.record(em, event({ note: 'rolled back' }));
          throw new Error('abort');
        })
        .catch(() => undefined);
      expect(await events(org.id, `payload->>'note' = 'rolled back'`)).toHaveLength(0);
      expect(await count(org.id)).toBe(before + 1);
    });

    it('a target named from the response updates its event by the primary key: with its COMMIT or at once, one index entry whatever the month holds', async () => {
      const recorder = t.app.get(AuditRecorder);
      const fixture = await createOrganization(t);
      // The month's other events: 5,000 of another organization, waiting for the sealer (as a busy log's last seconds,
      // or a sealer behind), analysed: neither the events nor the queue is a short way to the one event.
      await t.dataSource.query(
        `WITH event AS (
           INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
           SELECT 'set-target-crowd', now() - n * interval '1 millisecond', gen_random_uuid(), 'space.updated', 'user', 'u', 'api', 'space', 's' || n
             FROM generate_series(1, 5000) AS n
           RETURNING organization_id, occurred_at, id)
         INSERT INTO audit_unsealed (organization_id, occurred_at, id) SELECT * FROM event`,
      );
      await t.dataSource.query(`ANALYZE audit_events`);
      await t.dataSource.query(`ANALYZE audit_unsealed`);
      try {
        const created = { organizationId: fixture.id, action: 'space.created', target: { type: 'space', id: '' } };
        const target = async (id: string) =>
          (
            (await t.dataSource.query(`SELECT target_id, target_label FROM audit_events WHERE id = $1`, [id])) as { target_id: string; target_label: string }[]
          )[0];

        // With the COMMIT: behind the event's own insert, in the same message.
        let pending = '';
        await t.dataSource.transaction(async (em) => {
          pending = (await recorder.record(em, created)) as string;
          await recorder.setTarget(em, { organizationId: fixture.id, id: pending }, 'space-a', 'Space A');
        });
        expect(await target(pending)).toEqual({ target_id: 'space-a', target_label: 'Space A' });

        // At once, after the event committed; a label it already has stays.
        const committed = (await t.dataSource.transaction((em) =>
          recorder.record(em, { ...created, target: { type: 'space', id: '', label: 'Kept' } }),
        )) as string;
        await recorder.setTarget(t.dataSource.manager, { organizationId: fixture.id, id: committed }, 'space-b', 'Space B');
        expect(await target(committed)).toEqual({ target_id: 'space-b', target_label: 'Kept' });

        // The statement both send: one index probe in one partition, not a pass over the month's events.
        const [
          {
            'QUERY PLAN': [plan],
          },
        ] = (await t.dataSource.transaction((em) =>
          em.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${SET_TARGET}`, [fixture.id, uuidv7Time(committed), committed, 'space-c', null]),
        )) as { 'QUERY PLAN': { Plan: PlanNode }[] }[];
        const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
        const scans = nodes(plan.Plan).filter((node) => node['Node Type'].endsWith('Scan') && node['Relation Name']?.startsWith('audit_events'));
        expect(scans.map((node) => node['Node Type'])).toEqual(['Index Scan']);
        expect(scans[0]['Index Cond']).toMatch(/organization_id/);
        expect(plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks']).toBeLessThan(20);
      } finally {
        await t.dataSource.query(`DELETE FROM audit_unsealed WHERE organization_id = 'set-target-crowd'`);
        await t.dataSource.query(`DELETE FROM audit_events WHERE organization_id = 'set-target-crowd'`);
      }
    });
  });

  describe('reads', () => {
    let fixture: OrgFixture;
    let editor: Actor;
    const spaces: string[] = [];

    beforeAll(async () => {
      fixture = await createOrganization(t);
      editor = await addMember(t, fixture, 'admin');
      for (let index = 0; index < 3; index++) spaces.push((await createSpace(t, fixture)).id);
      for (const [index, spaceId] of spaces.entries()) {
        await t.http
          .patch(`/v1/spaces/${spaceId}`)
          .set(...fixture.admin.auth)
          .send({ title: `Admin ${index}` })
          .expect(200);
        await t.http
          .patch(`/v1/spaces/${spaceId}`)
          .set(...editor.auth)
          .send({ title: `Editor ${index}` })
          .expect(200);
        await t.http
          .post(`/v1/spaces/${spaceId}/comments`)
          .set(...editor.auth)
          .send({ body: { markdown: 'hi' } })
          .expect(200);
      }
    });

    it('admins only: 401 without a token, 403 for members, 404 from another organization', async () => {
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${fixture.id}/audit-events`), 401);
      const plain = await addMember(t, fixture, 'edit');
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${fixture.id}/audit-events`).set(...plain.auth), 403);
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${fixture.id}/audit-event-actions`).set(...plain.auth), 403);
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${fixture.id}/audit-events`).set(...other.admin.auth), 404);
    });

    it('lists newest first, in keyset pages, with filters combined', async () => {
      const all: { id: string; occurredAt: string; source: string }[] = [];
      let page: string | undefined;
      do {
        const res = await t.http
          .get(`/v1/orgs/${fixture.id}/audit-events`)
          .query({ limit: 4, ...(page && { page }) })
          .set(...fixture.admin.auth)
          .expect(200);
        expectContract(res, 'listOrganizationAuditEvents');
        all.push(...res.body.items);
        page = res.body.next?.page;
      } while (page);
      // Every event once: the nine writes above, and the operator's (the fixtures' members and their tokens).
      const [{ n }] = (await t.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1`, [fixture.id])) as { n: number }[];
      expect(all).toHaveLength(n);
      expect(new Set(all.map((event) => event.id)).size).toBe(n);
      expect(all.filter((event) => event.source === 'api')).toHaveLength(9);
      const times = all.map((event) => event.occurredAt);
      expect([...times].sort().reverse()).toEqual(times);

      const filtered = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events`)
        .query({ action: 'space.updated', actor: editor.user.id, target: spaces[1] })
        .set(...fixture.admin.auth)
        .expect(200);
      expect(filtered.body.items).toHaveLength(1);
      expect(filtered.body.items[0]).toMatchObject({
        action: 'space.updated',
        actor: { type: 'user', id: editor.user.id },
        target: { type: 'space', id: spaces[1] },
      });

      const future = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events`)
        .query({ from: new Date(Date.now() + 60_000).toISOString() })
        .set(...fixture.admin.auth)
        .expect(200);
      expect(future.body.items).toEqual([]);
      const past = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events`)
        .query({ to: '2000-01-01T00:00:00Z' })
        .set(...fixture.admin.auth)
        .expect(200);
      expect(past.body.items).toEqual([]);
    });

    it('pages across months: the two recent months, then the older ones, in one order; an old event by its id', async () => {
      const months = await createOrganization(t);
      const now = Date.now();
      await t.dataSource.query(`SELECT audit_ensure_partitions($1, now())`, [new Date(now - 240 * 86_400_000)]);
      // One event every 20 days over 220 days (eight months); 'old.action' for three old ones (60, 120 and 180 days).
      // Queued as the recorder leaves them; every other one sealed, so a filtered walk reads the links and the queue.
      const record = (k: number) => {
        const at = now - k * 20 * 86_400_000 - 1000;
        return t.dataSource.query(
          `WITH event AS (
             INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
             VALUES ($1, $2, $3, $4, 'user', 'u', 'api', 'space', $5) RETURNING organization_id, occurred_at, id)
           INSERT INTO audit_unsealed SELECT * FROM event`,
          [months.id, new Date(at), uuidv7(at), k >= 3 && k % 3 === 0 ? 'old.action' : 'space.updated', `s${k}`],
        );
      };
      for (let k = 0; k < 12; k += 2) await record(k);
      expect(await sealOrganization(t.dataSource, months.id)).toBe(6);
      for (let k = 1; k < 12; k += 2) await record(k);
      const expected = async (where = 'TRUE', values: unknown[] = []) =>
        (
          (await t.dataSource.query(`SELECT id FROM audit_events WHERE organization_id = $1 AND ${where} ORDER BY occurred_at DESC, id DESC`, [
            months.id,
            ...values,
          ])) as { id: string }[]
        ).map((row) => row.id);
      const walk = async (query: Record<string, string | number>) => {
        const ids: string[] = [];
        let page: string | undefined;
        do {
          const res = await t.http
            .get(`/v1/orgs/${months.id}/audit-events`)
            .query({ ...query, ...(page && { page }) })
            .set(...months.admin.auth)
            .expect(200);
          ids.push(...res.body.items.map((event: { id: string }) => event.id));
          page = res.body.next?.page;
        } while (page);
        return ids;
      };

      const all = await expected();
      expect(all.length).toBeGreaterThanOrEqual(12);
      expect(await walk({ limit: 5 })).toEqual(all);
      expect(await walk({ limit: 1000 })).toEqual(all);
      const old = await expected(`action = 'old.action'`);
      expect(old).toHaveLength(3);
      expect(await walk({ limit: 2, action: 'old.action' })).toEqual(old);
      expect(await walk({ limit: 1, action: 'old.action' })).toEqual(old);
      expect(await walk({ action: 'old.action' })).toEqual(old);
      // Sealed (even k) and queued (odd k) in one order, with the filter on each side.
      expect(await walk({ limit: 3, actor: 'u' })).toEqual(all);
      expect(await walk({ target: 's3', action: 'old.action' })).toEqual(await expected(`target_id = 's3'`));
      expect(await walk({ target: 's6', actor: 'u' })).toEqual(await expected(`target_id = 's6'`));
      const to = new Date(now - 70 * 86_400_000);
      expect(await walk({ limit: 3, to: to.toISOString() })).toEqual(await expected(`occurred_at <= $2`, [to]));

      const oldest = all[all.length - 1];
      const res = await t.http
        .get(`/v1/orgs/${months.id}/audit-events/${oldest}`)
        .set(...months.admin.auth)
        .expect(200);
      expect(res.body).toMatchObject({ id: oldest, target: { id: 's11' } });
    });

    it('a filtered page’s statement runs on its generic plan, read-only, in a transaction of its own that a failure rolls back', async () => {
      // One connection, so the statement after the failure meets the connection the failure ran on.
      const single = await new DataSource({ type: 'postgres', url: process.env[TEST_DATABASE_URL], extra: { max: 1 } }).initialize();
      try {
        const settings = `SELECT current_setting('plan_cache_mode') AS mode, current_setting('transaction_read_only') AS read_only, $1::int AS n`;
        expect(await queryPreparedGeneric(single, 'quire_test_generic', settings, [1])).toEqual([{ mode: 'force_generic_plan', read_only: 'on', n: 1 }]);
        await expect(queryPreparedGeneric(single, 'quire_test_generic_fails', `SELECT 1 / $1::int AS n`, [0])).rejects.toMatchObject({ code: '22012' });
        // Rolled back: no transaction left open and no setting left behind on the connection.
        expect(await single.query(`SELECT current_setting('plan_cache_mode') AS mode, now() = statement_timestamp() AS own_transaction`)).toEqual([
          { mode: 'auto', own_transaction: true },
        ]);
        expect(await queryPreparedGeneric(single, 'quire_test_generic', settings, [2])).toEqual([{ mode: 'force_generic_plan', read_only: 'on', n: 2 }]);
      } finally {
        await single.destroy();
      }
    });

    it('refuses bad input: limit over 1000, a forged cursor, a date that is not one', async () => {
      const path = `/v1/orgs/${fixture.id}/audit-events`;
      expectErrorEnvelope(
        await t.http
          .get(path)
          .query({ limit: 1001 })
          .set(...fixture.admin.auth),
        400,
      );
      await t.http
        .get(path)
        .query({ limit: 1000 })
        .set(...fixture.admin.auth)
        .expect(200);
      expectErrorEnvelope(
        await t.http
          .get(path)
          .query({ page: 'bogus' })
          .set(...fixture.admin.auth),
        400,
      );
      const forged = Buffer.from(JSON.stringify({ l: 'audit-events:occurredAt:desc', k: ['not a time', 'x'] })).toString('base64url');
      expectErrorEnvelope(
        await t.http
          .get(path)
          .query({ page: forged })
          .set(...fixture.admin.auth),
        400,
      );
      expectErrorEnvelope(
        await t.http
          .get(path)
          .query({ from: 'yesterday' })
          .set(...fixture.admin.auth),
        400,
      );
    });

    it('one event with its details; 404 for an unknown id or another organization’s event', async () => {
      const list = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events`)
        .query({ action: 'space.updated', limit: 1 })
        .set(...fixture.admin.auth)
        .expect(200);
      const id = list.body.items[0].id as string;
      const res = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events/${id}`)
        .set(...fixture.admin.auth)
        .expect(200);
      expectContract(res, 'getOrganizationAuditEvent');
      expect(res.body).toMatchObject({ id, schemaVersion: 1, executionId: 'updateSpaceById', payload: { changes: [{ field: 'title' }] } });
      expect(typeof res.body.correlationId).toBe('string');
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${other.id}/audit-events/${id}`).set(...other.admin.auth), 404);
      expectErrorEnvelope(await t.http.get(`/v1/orgs/${fixture.id}/audit-events/not-a-uuid`).set(...fixture.admin.auth), 404);
    });

    it('lists the action catalogue with labels', async () => {
      const res = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-event-actions`)
        .set(...fixture.admin.auth)
        .expect(200);
      expectContract(res, 'listOrganizationAuditEventActions');
      expect(res.body.items).toContainEqual({ object: 'audit-event-action', id: 'space.updated', label: 'Space updated' });
    });

    it('exports the filtered events as NDJSON, admins only', async () => {
      const res = await t.http
        .get(`/v1/orgs/${fixture.id}/audit-events`)
        .query({ format: 'ndjson', actor: editor.user.id })
        .set(...fixture.admin.auth)
        .buffer(true)
        .parse((response, done) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => done(null, text));
        })
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const lines = (res.body as string)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toHaveLength(6);
      expect(lines.every((event) => event.actor.id === editor.user.id && event.schemaVersion === 1)).toBe(true);
      expectErrorEnvelope(
        await t.http
          .get(`/v1/orgs/${fixture.id}/audit-events`)
          .query({ format: 'ndjson' })
          .set(...(await addMember(t, fixture, 'edit')).auth),
        403,
      );
    });
  });

  describe('tamper evidence', () => {
    /** A new organization's chain of `patches` space updates, verified whole: its links' event ids in chain order. */
    const sealedChain = async (patches: number) => {
      const fixture = await createOrganization(t);
      const space = await createSpace(t, fixture);
      for (let index = 0; index < patches; index++) {
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...fixture.admin.auth)
          .send({ title: `T${index}` })
          .expect(200);
      }
      expect((await verify(fixture.id)).code).toBe(0);
      const rows = (await t.dataSource.query(`SELECT id FROM audit_chain_links WHERE organization_id = $1 ORDER BY seq`, [fixture.id])) as { id: string }[];
      return { fixture, rows };
    };

    it('concurrent writers keep the chain consistent: verify passes after 50 parallel writes', async () => {
      const fixture = await createOrganization(t);
      const writer = await addMember(t, fixture, 'admin');
      const spaces = await Promise.all(Array.from({ length: 10 }, () => createSpace(t, fixture)));
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          index % 2 === 0
            ? t.http
                .patch(`/v1/spaces/${spaces[index % 10].id}`)
                .set(...writer.auth)
                .send({ title: `Title ${index}` })
            : t.http
                .post(`/v1/spaces/${spaces[index % 10].id}/comments`)
                .set(...writer.auth)
                .send({ body: { markdown: `c${index}` } }),
        ),
      );
      expect(results.map((res) => res.status).filter((status) => status !== 200)).toEqual([]);
      // The 50 writes' events (beside the operator's for the fixture's member and token).
      expect(await events(fixture.id, `source = 'api'`)).toHaveLength(50);
      // Sealers racing each other (the interval's and two more, as replicas' on connections of their own) chain each event once.
      await Promise.all([t.app.get(AuditSealerService).sealAll(), sealOrganization(t.dataSource, fixture.id), sealOrganization(t.dataSource, fixture.id)]);
      expect(await t.dataSource.query(`SELECT id FROM audit_unsealed WHERE organization_id = $1`, [fixture.id])).toEqual([]);
      const result = await verify(fixture.id);
      expect(result.code).toBe(0);
      // The writes' 50 and the operator's 2 (the member and its token), each once, in one unbroken sequence.
      expect(JSON.parse(result.stdout)).toMatchObject({ organizationId: fixture.id, ok: true, events: 52 });
      const seqs = (await t.dataSource.query(`SELECT seq FROM audit_chain_links WHERE organization_id = $1 ORDER BY seq`, [fixture.id])) as { seq: string }[];
      expect(seqs.map((row) => Number(row.seq))).toEqual(Array.from({ length: 52 }, (_, index) => index + 1));
    });

    it('verify names the first break: an edited payload, then a deleted event', async () => {
      const { fixture, rows } = await sealedChain(4);
      await t.dataSource.query(`UPDATE audit_events SET payload = '{"changes":[{"field":"title","after":"forged"}]}' WHERE id = $1`, [rows[1].id]);
      const edited = await verify(fixture.id);
      expect(edited.code).toBe(1);
      expect(JSON.parse(edited.stdout)).toMatchObject({ ok: false, brokenAt: rows[1].id, reason: expect.stringMatching(/changed after it was sealed/) });

      await t.dataSource.query(`DELETE FROM audit_events WHERE id = $1 OR id = $2`, [rows[1].id, rows[2].id]);
      const deleted = JSON.parse((await verify(fixture.id)).stdout);
      expect(deleted).toMatchObject({ ok: false, brokenAt: rows[3].id, reason: expect.stringMatching(/2 event\(s\) missing/) });
    });

    it('verify names the oldest events deleted with their links: missing before the first left, the retention having dropped none', async () => {
      const { fixture, rows } = await sealedChain(4);
      const oldest = [rows[0].id, rows[1].id];
      await t.dataSource.query(`DELETE FROM audit_chain_links WHERE organization_id = $1 AND id = ANY($2::uuid[])`, [fixture.id, oldest]);
      await t.dataSource.query(`DELETE FROM audit_events WHERE organization_id = $1 AND id = ANY($2::uuid[])`, [fixture.id, oldest]);
      const deleted = await verify(fixture.id);
      expect(deleted.code).toBe(1);
      expect(JSON.parse(deleted.stdout)).toMatchObject({ ok: false, brokenAt: rows[2].id, reason: '2 event(s) missing before this one (seq 1..2)' });
    });

    it('verify names an event outside the chain: neither sealed nor queued for the sealer', async () => {
      const fixture = await createOrganization(t);
      const space = await createSpace(t, fixture);
      await t.http
        .patch(`/v1/spaces/${space.id}`)
        .set(...fixture.admin.auth)
        .send({ title: 'Sealed' })
        .expect(200);
      expect((await verify(fixture.id)).code).toBe(0);
      // Written by hand, as the recorder never does: no place in the sealer's queue.
      const at = Date.now();
      const id = uuidv7(at);
      await t.dataSource.query(
        `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
         VALUES ($1, $2, $3, 'space.updated', 'user', 'u', 'api', 'space', $4)`,
        [fixture.id, new Date(at), id, space.id],
      );
      const outside = await verify(fixture.id);
      expect(outside.code).toBe(1);
      expect(JSON.parse(outside.stdout)).toMatchObject({ ok: false, brokenAt: id, reason: expect.stringMatching(/outside the chain/) });
    });
    it('a sealer vacuums its queue once it has taken QUEUE_VACUUM_AFTER events out of it', async () => {
      const fixture = await createOrganization(t);
      const vacuums = async () =>
        Number(
          ((await t.dataSource.query(`SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'audit_unsealed'`)) as { vacuum_count: string }[])[0]
            .vacuum_count,
        );
      const before = await vacuums();
      // As writers leave them: ten events of the organization, each with its place in the queue.
      await t.dataSource.query(
        `WITH event AS (
           INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
           SELECT $1, now() - ((10 - n) || ' milliseconds')::interval, gen_random_uuid(), 'space.updated', 'user', 'u', 'api', 'space', 'space-' || n
             FROM generate_series(1, 10) AS n
           RETURNING organization_id, occurred_at, id)
         INSERT INTO audit_unsealed (organization_id, occurred_at, id) SELECT organization_id, occurred_at, id FROM event`,
        [fixture.id],
      );
      // A sealer that has taken all but five rows of its allowance out of the queue since its last vacuum.
      const progress = { dequeuedSinceVacuum: QUEUE_VACUUM_AFTER - 5 };
      expect(await sealQueued(t.dataSource, progress)).toBeGreaterThanOrEqual(10);
      expect(progress.dequeuedSinceVacuum).toBe(0);
      expect(await t.dataSource.query(`SELECT id FROM audit_unsealed WHERE organization_id = $1`, [fixture.id])).toEqual([]);
      expect(await eventually(async () => (await vacuums()) > before, 5_000)).toBe(true);
      const result = await verify(fixture.id);
      expect(JSON.parse(result.stdout)).toMatchObject({ organizationId: fixture.id, ok: true, events: 10 });
    });
  });

  describe('retention', () => {
    it('detaches and drops the monthly partitions older than AUDIT_RETENTION_DAYS, and keeps the others', async () => {
      const old = new Date(Date.now() - 500 * 86_400_000);
      await t.dataSource.query(`SELECT audit_ensure_partitions($1, $2)`, [old, new Date(old.getTime() + 86_400_000)]);
      const name = `audit_events_${old.getUTCFullYear()}${String(old.getUTCMonth() + 1).padStart(2, '0')}`;
      await t.dataSource.query(
        `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
         VALUES ($1, $2, gen_random_uuid(), 'space.updated', 'user', 'u', 'api', 'space', 's')`,
        [org.id, old],
      );
      const exists = async (table: string) => ((await t.dataSource.query(`SELECT to_regclass($1) AS t`, [table])) as { t: string | null }[])[0].t !== null;
      expect(await exists(name)).toBe(true);
      const before = await count(org.id);
      const dropped = await t.app.get(AuditPartitionsService).dropExpired();
      expect(dropped).not.toBeNull();
      expect(await exists(name)).toBe(false);
      expect(await count(org.id)).toBe(before - 1);
      const now = new Date();
      expect(await exists(`audit_events_${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`)).toBe(true);
    });

    it('the chain verifies after the retention dropped its first events, from the mark it left; a deletion after the mark still breaks it', async () => {
      const old = new Date(Date.now() - 500 * 86_400_000);
      await t.dataSource.query(`SELECT audit_ensure_partitions($1, $2)`, [old, new Date(old.getTime() + 86_400_000)]);
      /** `count` events of the month past the retention, queued as the recorder leaves them, then sealed. */
      const oldEvents = async (organizationId: string, count: number) => {
        for (let index = 0; index < count; index++) {
          const at = new Date(old.getTime() + index);
          await t.dataSource.query(
            `WITH event AS (
               INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
               VALUES ($1, $2, $3, 'space.updated', 'user', 'u', 'api', 'space', 's') RETURNING organization_id, occurred_at, id)
             INSERT INTO audit_unsealed SELECT * FROM event`,
            [organizationId, at, uuidv7(at.getTime())],
          );
        }
        expect(await sealOrganization(t.dataSource, organizationId)).toBe(count);
      };
      // An organization idle since that month: every event of its chain goes.
      const idle = await createOrganization(t);
      await oldEvents(idle.id, 2);
      const fixture = await createOrganization(t);
      // Three events of that month, sealed first (seq 1..3), then two of now (seq 4..5).
      await oldEvents(fixture.id, 3);
      const space = await createSpace(t, fixture);
      for (let index = 0; index < 2; index++) {
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...fixture.admin.auth)
          .send({ title: `Kept ${index}` })
          .expect(200);
      }
      expect(JSON.parse((await verify(fixture.id)).stdout)).toMatchObject({ ok: true, events: 5 });
      const [third] = (await t.dataSource.query(`SELECT hash FROM audit_chain_links WHERE organization_id = $1 AND seq = 3`, [fixture.id])) as {
        hash: string;
      }[];

      expect(await t.app.get(AuditPartitionsService).dropExpired()).not.toBeNull();
      expect(await t.dataSource.query(`SELECT dropped_seq::int, dropped_hash FROM audit_chains WHERE organization_id = $1`, [fixture.id])).toEqual([
        { dropped_seq: 3, dropped_hash: third.hash },
      ]);
      expect(JSON.parse((await verify(fixture.id)).stdout)).toMatchObject({ ok: true, events: 2 });
      expect(JSON.parse((await verify(idle.id)).stdout)).toMatchObject({ ok: true, events: 0 });

      const [fourth] = (await t.dataSource.query(`SELECT id FROM audit_chain_links WHERE organization_id = $1 AND seq = 4`, [fixture.id])) as { id: string }[];
      await t.dataSource.query(`DELETE FROM audit_chain_links WHERE organization_id = $1 AND seq = 4`, [fixture.id]);
      await t.dataSource.query(`DELETE FROM audit_events WHERE organization_id = $1 AND id = $2`, [fixture.id, fourth.id]);
      const deleted = await verify(fixture.id);
      expect(deleted.code).toBe(1);
      expect(JSON.parse(deleted.stdout)).toMatchObject({ ok: false, reason: '1 event(s) missing before this one (seq 4..4)' });
    });
  });

  it('scripts’ tokens are not users: an outsider without membership sees nothing', async () => {
    const outsider = await createUser(t);
    expectErrorEnvelope(await t.http.get(`/v1/orgs/${org.id}/audit-events`).set(...outsider.auth), 404);
  });
});

interface ChangeEventRow {
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

  const eventOf = async (action: string, targetId: string): Promise<ChangeEventRow> => {
    const rows: ChangeEventRow[] = await t.dataSource.query(
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

    it('routes the unit of work records: concurrent writes with one token each record their own request, in their own transaction', async () => {
      expect((AUDITED_ROUTES.updateSpaceById as AuditedRoute).unitOfWork).toBe(true);
      const spaces = await Promise.all(Array.from({ length: 8 }, (_, i) => createSpace(t, org, { title: `Parallel ${i}` })));
      const answers = await Promise.all(
        spaces.map((space, i) =>
          patch(`/v1/spaces/${space.id}`, { title: `Renamed ${i}` })
            .set('X-Request-Id', `uow-${i}-${Date.now()}`)
            .expect(200),
        ),
      );
      const rows: { target_id: string; correlation_id: string; xmin: string; payload: { changes: unknown[] } }[] = await t.dataSource.query(
        `SELECT target_id, correlation_id, xmin::text AS xmin, payload FROM audit_events WHERE organization_id = $1 AND action = 'space.updated' AND target_id = ANY($2)`,
        [org.id, spaces.map((space) => space.id)],
      );
      expect(rows).toHaveLength(8);
      for (const [i, space] of spaces.entries()) {
        const row = rows.find((event) => event.target_id === space.id);
        expect(row?.correlation_id).toBe(answers[i].headers['x-request-id']);
        expect(row?.payload.changes).toEqual([{ field: 'title', before: `Parallel ${i}`, after: `Renamed ${i}` }]);
        // Committed by the space's own write: the same transaction as the row it changed.
        expect(row?.xmin).toBe(await xminOf('spaces', space.id));
      }
    });

    it('a retry answered from its Idempotency-Key records nothing more: one change, one event', async () => {
      expect((AUDITED_ROUTES.createChangeRequest as AuditedRoute).unitOfWork).toBe(true);
      const space = await createSpace(t, org);
      const since = new Date();
      const send = () =>
        t.http
          .post(`/v1/spaces/${space.id}/change-requests`)
          .set(...org.admin.auth)
          .set('Idempotency-Key', `audit-retry-${space.id}`)
          .send({ subject: 'Once' })
          .expect(201);
      const first = await send();
      const retry = await send();
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body.id).toBe(first.body.id);
      // The replay's response is sent without the handler: give a listener on its end the time to act, had it one.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const rows: { target_id: string; correlation_id: string }[] = await t.dataSource.query(
        `SELECT target_id, correlation_id FROM audit_events WHERE organization_id = $1 AND action = 'change_request.created' AND occurred_at >= $2`,
        [org.id, since],
      );
      expect(rows).toEqual([{ target_id: first.body.id, correlation_id: first.headers['x-request-id'] }]);
    });

    it('a route declared `unitOfWork` whose change the unit of work does not write: 500 under AUDIT_STRICT; else logged and recorded apart', async () => {
      const route = AUDITED_ROUTES.updateCollectionById as AuditedRoute;
      const collection = await createCollection(t, org, { title: 'Elsewhere' });
      delete route.transaction;
      route.unitOfWork = true;
      const logs: string[] = [];
      const apps: TestApp[] = [];
      const recorded = async () =>
        (
          (await t.dataSource.query(`SELECT 1 FROM audit_events WHERE organization_id = $1 AND action = 'collection.updated' AND target_id = $2`, [
            org.id,
            collection.id,
          ])) as unknown[]
        ).length;
      try {
        const strict = await createTestApp();
        apps.push(strict);
        const refused = await strict.http
          .patch(`/v1/collections/${collection.id}`)
          .set(...org.admin.auth)
          .send({ title: 'Strict' });
        expect(refused.status).toBe(500);
        expect(await recorded()).toBe(0);
        const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (logs.push(chunk.toString()), done()) });
        const lenient = await createTestApp({ AUDIT_STRICT: 'false', LOG_LEVEL: 'error' }, sink);
        apps.push(lenient);
        const answer = await lenient.http
          .patch(`/v1/collections/${collection.id}`)
          .set(...org.admin.auth)
          .send({ title: 'Lenient' })
          .expect(200);
        // Recorded when the response is sent, in a transaction of its own, with the request's caller and id.
        expect(await eventually(async () => (await recorded()) === 1, 5_000)).toBe(true);
        const [apart] = await t.dataSource.query(`SELECT actor_id, correlation_id FROM audit_events WHERE action = 'collection.updated' AND target_id = $1`, [
          collection.id,
        ]);
        expect(apart).toEqual({ actor_id: org.admin.user.id, correlation_id: answer.headers['x-request-id'] });
      } finally {
        delete route.unitOfWork;
        route.transaction = true;
        for (const app of apps) await app.close();
      }
      expect(logs.some((line) => line.includes('write without its audit event') && line.includes('updateCollectionById'))).toBe(true);
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

/**
 * Route coverage of the audit log, over the application's route table. Every non-GET route is in the
 * catalogue (an action, or why it records nothing), and the catalogue names no route that is gone.
 * That each audited route's success leaves its event is checked on every e2e test of a writing
 * route: the test app runs with AUDIT_STRICT, where such a success without its event answers 500.
 */
describe('audit coverage of the route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('every non-GET route declares its audit action or why it records nothing', () => {
    // Routes without a public operationId are not API operations: an integration's public endpoint (`ALL …/public`)
    // is the script's own anonymous HTTP, and what the script then changes goes through audited routes.
    const writing = declaredRoutes(t.app).filter((route) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method) && !route.operationId.includes('.'));
    expect(writing.length).toBeGreaterThan(100);
    expect(writing.filter((route) => !(route.operationId in AUDITED_ROUTES)).map((route) => `${route.method} ${route.path} (${route.operationId})`)).toEqual(
      [],
    );
    const operationIds = new Set(writing.map((route) => route.operationId));
    expect(Object.keys(AUDITED_ROUTES).filter((operationId) => !operationIds.has(operationId))).toEqual([]);
  });
});

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

  it('behind a trusted proxy, a write records the address X-Forwarded-For names', async () => {
    const space = await createSpace(t, org);
    await t.http
      .patch(`/v1/spaces/${space.id}`)
      .set(...org.admin.auth)
      .set('X-Forwarded-For', '10.64.0.9')
      .send({ title: 'Renamed' })
      .expect(200);
    const [event] = await t.dataSource.query(`SELECT ip, payload FROM audit_events WHERE organization_id = $1 AND target_id = $2`, [org.id, space.id]);
    expect(event).toMatchObject({ ip: '10.64.0.9', payload: { ip: '10.64.0.9' } });
  });

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
      // The first run seals what the organization committed (the installations' own events among it, unsealed until
      // now), then places the new subscriber after it: it gets what follows, not what came before it.
      await delivery.deliverAll();

      for (const title of ['Renamed once', 'Renamed twice']) {
        await t.http
          .patch(`/v1/orgs/${org.id}`)
          .set(...org.admin.auth)
          .send({ title })
          .expect(200);
      }
      // One batch here; two when the app's own 5-second timers (JOBS_ENABLED) seal and deliver between the PATCHes
      // on a loaded machine, and a timer's run may still be writing its batch when ours finds nothing left: read
      // until both events are there (or 10 s passed). Either way every event once, in chain order.
      const eventCount = (batches: { payload: Record<string, unknown> }[]) =>
        batches.reduce((sum, batch) => sum + ((batch.payload.events as unknown[] | undefined)?.length ?? 0), 0);
      let delivered: Awaited<ReturnType<typeof eventsOfType>> = [];
      for (const until = Date.now() + 10_000; eventCount(delivered) < 2 && Date.now() < until;) {
        await sealer.sealAll();
        await delivery.deliverAll();
        delivered = await eventsOfType(t, org.admin, listening, 'audit_event');
        if (eventCount(delivered) < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(delivered.length).toBeGreaterThanOrEqual(1);
      const events = delivered.flatMap((batch) => batch.payload.events as { action: string; payload: { changes: unknown[] } }[]);
      expect(events.map((event) => event.action)).toEqual(['organization.updated', 'organization.updated']);
      const second = delivered.length === 1 ? events[1] : events.find((event) => JSON.stringify(event.payload.changes).includes('"after":"Renamed twice"'));
      expect(second?.payload.changes).toEqual([{ field: 'title', before: 'Renamed once', after: 'Renamed twice' }]);
      // Delivered through the integration event path like any event (its trace and status; not a public event type).
      for (const batch of delivered) {
        const [{ status }] = await t.dataSource.query(`SELECT status FROM integration_events WHERE id = $1`, [batch.id]);
        expect(status).toBe('success');
      }
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
