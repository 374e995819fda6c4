import { auditScope, type AuditScope } from '../../src/common/audit/audit.context';
import { uuidv7 } from '../../src/common/audit/uuid7';
import { AuditRecorder } from '../../src/common/audit/audit-recorder';
import { INTEGRATION_SCOPES } from '../../src/common/access/script-access';
import { IntegrationTokensService } from '../../src/modules/integrations/integration-tokens.service';
import { AuditPartitionsService } from '../../src/modules/audit/audit-partitions.service';
import { AuditSealerService } from '../../src/modules/audit/audit-sealer.service';
import { addMember, Actor, createOrganization, createUser, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { TEST_DATABASE_URL } from '../support/database';
import { publishScript } from '../support/integration-fixtures';
import { runCli } from '../support/run-cli';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

interface EventRow {
  id: string;
  action: string;
  actor_type: string;
  actor_id: string;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  correlation_id: string | null;
  payload: Record<string, unknown>;
}

describe('audit log (issue 28)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let member: Actor;
  let reader: Actor;
  let other: OrgFixture;

  const events = async (organizationId: string, where = 'TRUE', values: unknown[] = []): Promise<EventRow[]> =>
    t.dataSource.query(`SELECT * FROM audit_events WHERE organization_id = $1 AND ${where} ORDER BY occurred_at, id`, [organizationId, ...values]);
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
      const all: { id: string; occurredAt: string }[] = [];
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
      expect(all).toHaveLength(9);
      expect(new Set(all.map((event) => event.id)).size).toBe(9);
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
      // One event every 20 days over 220 days (eight months); 'old.action' for two old ones (120 and 180 days).
      for (let k = 0; k < 12; k++) {
        const at = now - k * 20 * 86_400_000 - 1000;
        await t.dataSource.query(
          `INSERT INTO audit_events (organization_id, occurred_at, id, action, actor_type, actor_id, source, target_type, target_id)
           VALUES ($1, $2, $3, $4, 'user', 'u', 'api', 'space', $5)`,
          [months.id, new Date(at), uuidv7(at), k >= 4 && k % 3 === 0 ? 'old.action' : 'space.updated', `s${k}`],
        );
      }
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
      expect(await walk({ limit: 2, action: 'old.action' })).toEqual(await expected(`action = 'old.action'`));
      expect(await walk({ action: 'old.action' })).toHaveLength(2);
      const to = new Date(now - 70 * 86_400_000);
      expect(await walk({ limit: 3, to: to.toISOString() })).toEqual(await expected(`occurred_at <= $2`, [to]));

      const oldest = all[all.length - 1];
      const res = await t.http
        .get(`/v1/orgs/${months.id}/audit-events/${oldest}`)
        .set(...months.admin.auth)
        .expect(200);
      expect(res.body).toMatchObject({ id: oldest, target: { id: 's11' } });
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
      expect(await count(fixture.id)).toBe(50);
      // Sealers racing each other (the interval's and verify's) still chain each event once.
      await Promise.all([t.app.get(AuditSealerService).sealAll(), t.app.get(AuditSealerService).sealAll()]);
      const result = await verify(fixture.id);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ organizationId: fixture.id, ok: true, events: 50 });
      const seqs = (await t.dataSource.query(`SELECT seq FROM audit_chain_links WHERE organization_id = $1 ORDER BY seq`, [fixture.id])) as { seq: string }[];
      expect(seqs.map((row) => Number(row.seq))).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    });

    it('verify names the first break: an edited payload, then a deleted event', async () => {
      const fixture = await createOrganization(t);
      const space = await createSpace(t, fixture);
      for (let index = 0; index < 4; index++) {
        await t.http
          .patch(`/v1/spaces/${space.id}`)
          .set(...fixture.admin.auth)
          .send({ title: `T${index}` })
          .expect(200);
      }
      expect((await verify(fixture.id)).code).toBe(0);
      const rows = (await t.dataSource.query(`SELECT id FROM audit_chain_links WHERE organization_id = $1 ORDER BY seq`, [fixture.id])) as { id: string }[];
      await t.dataSource.query(`UPDATE audit_events SET payload = '{"changes":[{"field":"title","after":"forged"}]}' WHERE id = $1`, [rows[1].id]);
      const edited = await verify(fixture.id);
      expect(edited.code).toBe(1);
      expect(JSON.parse(edited.stdout)).toMatchObject({ ok: false, brokenAt: rows[1].id, reason: expect.stringMatching(/changed after it was sealed/) });

      await t.dataSource.query(`DELETE FROM audit_events WHERE id = $1 OR id = $2`, [rows[1].id, rows[2].id]);
      const deleted = JSON.parse((await verify(fixture.id)).stdout);
      expect(deleted).toMatchObject({ ok: false, brokenAt: rows[3].id, reason: expect.stringMatching(/2 event\(s\) missing/) });
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
  });

  it('scripts’ tokens are not users: an outsider without membership sees nothing', async () => {
    const outsider = await createUser(t);
    expectErrorEnvelope(await t.http.get(`/v1/orgs/${org.id}/audit-events`).set(...outsider.auth), 404);
  });
});
