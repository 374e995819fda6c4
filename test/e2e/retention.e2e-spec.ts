import { Client } from 'pg';
import { PermissionGrant } from '../../src/modules/access/permission-grant.entity';
import { JobsService } from '../../src/jobs/jobs.service';
import { Revision } from '../../src/modules/content/revision.entity';
import { Clock } from '../../src/modules/spaces/clock';
import { PURGE_DELETED_SPACES } from '../../src/modules/spaces/space-retention.job';
import { SpaceRetentionService } from '../../src/modules/spaces/space-retention.service';
import { Space } from '../../src/modules/space-model/space.entity';
import { Actor, addMember, createOrganization } from '../support/builders';
import { directEnv, TEST_DATABASE_URL } from '../support/database';
import { expectErrorEnvelope } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;
/** Advisory-lock key of the purge (see SpaceRetentionService). */
const PURGE_LOCK = 0x717569_21;

describe('retention of deleted spaces', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ JOBS_ENABLED: 'true' })));
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  /** Deletes the space through the API as if the clock of app `app` read `at`. */
  async function deleteAt(app: TestApp, spaceId: string, actor: Actor, at: Date): Promise<void> {
    const clock = jest.spyOn(app.app.get(Clock), 'now').mockReturnValue(at);
    await app.http
      .delete(`/v1/spaces/${spaceId}`)
      .set(...actor.auth)
      .expect(205);
    clock.mockRestore();
  }
  /** Resolves once some session waits on a lock that `holder` holds (polling PostgreSQL, not the clock). */
  async function waitUntilBlockedBy(holder: Client): Promise<void> {
    const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')).rows;
    for (let attempt = 0; attempt < 500; attempt++) {
      // Asked from another session: inside the holder's transaction the activity view would be a frozen snapshot.
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
      if (n > 0) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throw new Error('No session ever waited on the lock');
  }
  const exists = async (spaceId: string) => (await t.dataSource.getRepository(Space).countBy({ id: spaceId })) === 1;

  it('purges spaces deleted more than 7 days ago with everything they own, and leaves the others', async () => {
    const org = await createOrganization(t);
    const expired = await createSpace(t, org);
    const recent = await createSpace(t, org);
    const live = await createSpace(t, org);
    const guest = await addMember(t, org, null);
    await t.http
      .post(`/v1/spaces/${expired.id}/permissions`)
      .set(...org.admin.auth)
      .send({ role: 'read', users: [guest.user.id] })
      .expect(204);
    await deleteAt(t, expired.id, org.admin, new Date(Date.now() - 8 * DAY));
    await deleteAt(t, recent.id, org.admin, new Date(Date.now() - 6 * DAY));

    const result = await t.app.get(SpaceRetentionService).purgeExpired();
    expect(result.ran).toBe(true);
    expect(result.purged).toBeGreaterThanOrEqual(1);

    expect(await exists(expired.id)).toBe(false);
    // The system's removal is in the organization's audit log; the recent space's deletion only.
    expect(
      await t.dataSource.query(
        `SELECT action, actor_type, source, target_id, target_label FROM audit_events WHERE organization_id = $1 AND action = 'space.purged'`,
        [org.id],
      ),
    ).toEqual([{ action: 'space.purged', actor_type: 'system', source: 'workflow', target_id: expired.id, target_label: expect.any(String) }]);
    expect(await t.dataSource.getRepository(Revision).countBy({ spaceId: expired.id })).toBe(0);
    expect(await t.dataSource.getRepository(PermissionGrant).countBy({ spaceId: expired.id })).toBe(0);
    expect(await exists(recent.id)).toBe(true);
    expect(await exists(live.id)).toBe(true);
    expectErrorEnvelope(await t.http.post(`/v1/spaces/${expired.id}/restore`).set(...org.admin.auth), 404);
    await t.http
      .post(`/v1/spaces/${recent.id}/restore`)
      .set(...org.admin.auth)
      .expect(200);
  });

  it('runs the purge through the job queue, scheduled every hour', async () => {
    expect(await t.dataSource.query('SELECT cron, timezone FROM pgboss.schedule WHERE name = $1', [PURGE_DELETED_SPACES.name])).toEqual([
      { cron: '0 * * * *', timezone: 'UTC' },
    ]);
    const org = await createOrganization(t);
    const expired = await createSpace(t, org);
    const recent = await createSpace(t, org);
    await deleteAt(t, expired.id, org.admin, new Date(Date.now() - 8 * DAY));
    await deleteAt(t, recent.id, org.admin, new Date(Date.now() - 6 * DAY));
    const purge = jest.spyOn(t.app.get(SpaceRetentionService), 'purgeExpired');

    // What the schedule does at the top of the hour: send the job, which a worker then runs.
    const id = await t.app.get(JobsService).send(PURGE_DELETED_SPACES, {});
    expect(id).toEqual(expect.any(String));
    for (let attempt = 0; attempt < 400 && (await exists(expired.id)); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await exists(expired.id)).toBe(false);
    expect(await exists(recent.id)).toBe(true);
    expect(purge).toHaveBeenCalledTimes(1);
  });

  it('works through many spaces in batches', async () => {
    const org = await createOrganization(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const space = await createSpace(t, org);
      await deleteAt(t, space.id, org.admin, new Date(Date.now() - 30 * DAY));
      ids.push(space.id);
    }
    const result = await t.app.get(SpaceRetentionService).purgeExpired(2);
    expect(result.purged).toBeGreaterThanOrEqual(5);
    for (const id of ids) expect(await exists(id)).toBe(false);
  });

  it('lets one process purge at a time: another holding the lock makes this run skip', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await deleteAt(t, space.id, org.admin, new Date(Date.now() - 8 * DAY));
    // Another process's session-level lock: on the server itself (behind PgBouncer, the direct URL).
    const url = process.env[TEST_DATABASE_URL] as string;
    const replica = new Client({ connectionString: directEnv(url).DATABASE_DIRECT_URL ?? url });
    await replica.connect();
    try {
      await replica.query('SELECT pg_advisory_lock($1)', [PURGE_LOCK]);
      expect(await t.app.get(SpaceRetentionService).purgeExpired()).toEqual({ ran: false, purged: 0 });
      expect(await exists(space.id)).toBe(true);
      await replica.query('SELECT pg_advisory_unlock($1)', [PURGE_LOCK]);
    } finally {
      await replica.end();
    }
    expect((await t.app.get(SpaceRetentionService).purgeExpired()).ran).toBe(true);
    expect(await exists(space.id)).toBe(false);
  });

  it('skips a space whose row a restore holds, and purges it on a later run if it stays deleted', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await deleteAt(t, space.id, org.admin, new Date(Date.now() - 8 * DAY));
    const restoring = new Client({ connectionString: process.env[TEST_DATABASE_URL] });
    await restoring.connect();
    try {
      // What a restore does first: lock the row until its transaction ends.
      await restoring.query('BEGIN');
      await restoring.query('SELECT id FROM spaces WHERE id = $1 FOR UPDATE', [space.id]);
      expect((await t.app.get(SpaceRetentionService).purgeExpired()).ran).toBe(true);
      expect(await exists(space.id)).toBe(true);
      await restoring.query('ROLLBACK');
    } finally {
      await restoring.end();
    }
    await t.app.get(SpaceRetentionService).purgeExpired();
    expect(await exists(space.id)).toBe(false);
  });

  it('makes a restore that waits behind a purge of the space answer 404, not a half-restored space', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    await deleteAt(t, space.id, org.admin, new Date(Date.now() - 6 * DAY));
    const purging = new Client({ connectionString: process.env[TEST_DATABASE_URL] });
    await purging.connect();
    try {
      // What a purge batch does: lock the row, delete it, commit.
      await purging.query('BEGIN');
      await purging.query('SELECT id FROM spaces WHERE id = $1 FOR UPDATE', [space.id]);
      await purging.query('DELETE FROM spaces WHERE id = $1', [space.id]);
      const restore = t.http.post(`/v1/spaces/${space.id}/restore`).set(...org.admin.auth);
      const answered = restore.then((res) => res);
      await waitUntilBlockedBy(purging);
      await purging.query('COMMIT');
      expectErrorEnvelope(await answered, 404);
    } finally {
      await purging.end();
    }
    expect(await exists(space.id)).toBe(false);
  });

  it('follows SPACE_RETENTION_DAYS', async () => {
    const short = await createTestApp({ SPACE_RETENTION_DAYS: '1', JOBS_ENABLED: 'true' });
    try {
      const org = await createOrganization(short);
      const space = await createSpace(short, org);
      await deleteAt(short, space.id, org.admin, new Date(Date.now() - 2 * DAY));
      expectErrorEnvelope(await short.http.post(`/v1/spaces/${space.id}/restore`).set(...org.admin.auth), 404, /retention/);
      // Under the default 7 days the same space is still restorable.
      await t.http
        .post(`/v1/spaces/${space.id}/restore`)
        .set(...org.admin.auth)
        .expect(200);
    } finally {
      await short.close();
    }
  });
});
