import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { freePort } from '../../src/common/free-port';
import { commitTree } from '../../src/modules/content/git-sync/git-repository';
import { exportLayout } from '../../src/modules/content/git-sync/layout-export';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { addMember, Actor, createOrganization, OrgFixture } from '../support/builders';
import { expectContract } from '../support/contract';
import { layoutPage } from '../support/git-sync-space';
import { replicaClusterUnavailable, ReplicaCluster, startReplicaCluster } from '../support/replica-cluster';
import { createTestApp, TestApp } from '../support/test-app';

const METRICS_TOKEN = 'read-replicas-metrics-token-0123456789abcdef';
const REDIS_URL = process.env.QUIRE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// Long enough that a read right after a write cannot meet the replica caught up on a loaded machine.
const APPLY_DELAY_MS = 4000;

const unavailable = replicaClusterUnavailable();
if (unavailable) process.stderr.write(`read-replicas e2e skipped: ${unavailable}\n`);

/**
 * DATABASE_READ_URLS against a real streaming replica this test makes (a primary and a
 * `pg_basebackup -R` replica replaying APPLY_DELAY_MS behind), so lag is visible.
 */
(unavailable ? describe.skip : describe)('reads on a streaming replica', () => {
  let cluster: ReplicaCluster;
  let t: TestApp;
  let org: OrgFixture;
  let reader: Actor;
  /** Two more Quire replicas of the same installation, sharing read-your-writes positions on Redis. */
  let a: TestApp;
  let b: TestApp;
  const others: TestApp[] = [];
  const gitRoot = mkdtempSync(join(tmpdir(), 'quire-replica-git-'));
  const shared = { REDIS_URL, REDIS_KEY_PREFIX: `quire-test-${Date.now()}-${randomBytes(3).toString('hex')}:`, GIT_SYNC_ROOT: gitRoot };
  const replica = async (env: Record<string, string>) => {
    const app = await createTestApp({ DATABASE_READ_URLS: cluster.replicaUrl, METRICS_TOKEN, ...env }, undefined, () => cluster.primaryUrl);
    others.push(app);
    return app;
  };

  beforeAll(async () => {
    cluster = await startReplicaCluster({ applyDelayMs: APPLY_DELAY_MS });
    const migrate = await createDataSource(cluster.primaryUrl, 2).initialize();
    await runMigrations(migrate);
    await migrate.destroy();
    t = await createTestApp({ DATABASE_READ_URLS: cluster.replicaUrl, METRICS_TOKEN }, undefined, () => cluster.primaryUrl);
    org = await createOrganization(t);
    reader = await addMember(t, org, 'admin');
    a = await replica(shared);
    b = await replica(shared);
    await cluster.caughtUp();
  }, 180_000);

  afterAll(async () => {
    for (const app of others) await app.close();
    rmSync(gitRoot, { recursive: true, force: true });
    await t?.close();
    await cluster?.destroy();
  });

  const onReplica = async (spaceId: string) => {
    const client = new Client({ connectionString: cluster.replicaUrl });
    await client.connect();
    try {
      return (await client.query('SELECT 1 FROM spaces WHERE id = $1', [spaceId])).rowCount === 1;
    } finally {
      await client.end();
    }
  };
  const revisionOnReplica = async (spaceId: string) => {
    const client = new Client({ connectionString: cluster.replicaUrl });
    await client.connect();
    try {
      return (await client.query('SELECT revision_id FROM spaces WHERE id = $1', [spaceId])).rows[0]?.revision_id as string | undefined;
    } finally {
      await client.end();
    }
  };
  const createSpace = async (title: string, through = t) =>
    (
      await through.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title })
        .expect(201)
    ).body.id as string;
  const listedBy = async (actor: Actor, through = t) => {
    const res = await through.http
      .get(`/v1/orgs/${org.id}/spaces`)
      .query({ limit: 1000 })
      .set(...actor.auth)
      .expect(200);
    expectContract(res, 'listSpacesInOrganizationById');
    return (res.body.items as { id: string }[]).map((space) => space.id);
  };
  const metric = async (line: RegExp) => {
    const res = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    return Number(line.exec(res.text)?.[1] ?? 0);
  };

  it('a create followed by a read by the same token sees the create, though the replica has not replayed it', async () => {
    const id = await createSpace('Written just now');
    expect(await listedBy(org.admin)).toContain(id);
    // The read above could not have come from the replica: it does not have the space yet.
    expect(await onReplica(id)).toBe(false);
  });

  it('a read by another token is served by the replica: a space only on the primary is missing from its answer, then appears', async () => {
    const before = await metric(/^quire_db_replica_reads_total\{target="replica"\} (\d+)/m);
    const id = await createSpace('Not replayed yet');
    expect(await listedBy(reader)).not.toContain(id);
    expect(await onReplica(id)).toBe(false);
    expect(await metric(/^quire_db_replica_reads_total\{target="replica"\} (\d+)/m)).toBeGreaterThan(before);

    await cluster.caughtUp();
    // Past the replica's position check (cached 100 ms), the same read finds it there.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await listedBy(reader)).toContain(id);
  }, 60_000);

  it('content of a space someone just wrote is read where that write is, for every token', async () => {
    const id = await createSpace('Content');
    // The replica lacks the space and its first revision; the guards read the space on the primary, so
    // its content must come from there too, or the revision it names would be missing (a 404).
    expect(await onReplica(id)).toBe(false);
    const res = await t.http
      .get(`/v1/spaces/${id}/content/pages`)
      .set(...reader.auth)
      .expect(200);
    expectContract(res, 'listPages');
  });

  it('a write answered by one Quire replica is waited for by a read answered by another (positions on Redis)', async () => {
    const id = await createSpace('Written through one replica', a);
    expect(await listedBy(org.admin, b)).toContain(id);
    const res = await b.http
      .get(`/v1/spaces/${id}/content/pages`)
      .set(...reader.auth)
      .expect(200);
    expectContract(res, 'listPages');
    // Both reads could not have come from the replica: it does not have the space yet.
    expect(await onReplica(id)).toBe(false);
  });

  it('Redis not answering: a read goes to the primary (it cannot know what another replica wrote)', async () => {
    const blind = await replica({ ...shared, REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_TIMEOUT_MS: '200' });
    const id = await createSpace('Written while Redis is away', a);
    // The reader wrote nothing: with its positions unknown, the space the replica lacks is still listed.
    expect(await listedBy(reader, blind)).toContain(id);
    expect(await onReplica(id)).toBe(false);
    const errors = await blind.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(Number(/^quire_db_write_positions_errors_total (\d+)/m.exec(errors.text)?.[1])).toBeGreaterThan(0);
  }, 60_000);

  it('a write made by a job (a Git Sync import) is recorded for the token and the space that sent it', async () => {
    const id = await createSpace('Imported by a job', a);
    const repo = join(gitRoot, 'seed');
    const pages = [layoutPage({ pageId: 'imported', parentId: null, position: 0, title: 'Imported page' })];
    await commitTree(repo, 'refs/heads/main', await exportLayout({ pages, files: [], reusableContents: [], variables: {} }), 'seed', {
      name: 'Test',
      email: 'test@example.com',
    });
    const revisionOf = async () => (await t.app.get(DataSource).query('SELECT revision_id FROM spaces WHERE id = $1', [id]))[0].revision_id as string;
    const before = await revisionOf();
    // No replica runs jobs yet: the import waits in the queue.
    await a.http
      .post(`/v1/spaces/${id}/git/import`)
      .set(...org.admin.auth)
      .send({ url: `file://${repo}`, ref: 'refs/heads/main' })
      .expect(204);
    // The replica replays the request's own writes (the space, the queued job): only the job's are new.
    await cluster.caughtUp();
    await replica({ ...shared, JOBS_ENABLED: 'true' });
    const deadline = Date.now() + 30_000;
    while ((await revisionOf()) === before) {
      if (Date.now() > deadline) throw new Error('the import did not run');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The worker records the position once the handler returns, just after its commit.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await revisionOnReplica(id)).toBe(before);
    for (const [actor, through] of [
      [org.admin, a],
      [reader, b],
    ] as const) {
      const res = await through.http
        .get(`/v1/spaces/${id}/content/pages`)
        .set(...actor.auth)
        .expect(200);
      expect((res.body.pages as { title: string }[]).map((page) => page.title)).toEqual(['Imported page']);
    }
  }, 90_000);

  it('a replica that stops answering is taken out: reads fall back to the primary without an error; health and metrics say so', async () => {
    await cluster.stopReplica();
    const id = await createSpace('After the replica stopped');
    // The reader holds no recent write: it would read the replica, which is gone.
    expect(await listedBy(reader)).toContain(id);
    expect(await listedBy(reader)).toContain(id);

    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.info.database.status).toBe('up');
    expect(ready.body.info.readReplicas.replicas).toEqual([expect.objectContaining({ replica: new URL(cluster.replicaUrl).host + '/quire', state: 'down' })]);
    expect(await metric(/^quire_db_replica_up\{replica="[^"]+"\} (\d+)/m)).toBe(0);
  }, 60_000);
});
