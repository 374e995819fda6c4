import { Client } from 'pg';
import { createDataSource, runMigrations } from '../../src/database/data-source';
import { addMember, Actor, createOrganization, OrgFixture } from '../support/builders';
import { expectContract } from '../support/contract';
import { replicaClusterUnavailable, ReplicaCluster, startReplicaCluster } from '../support/replica-cluster';
import { createTestApp, TestApp } from '../support/test-app';

const METRICS_TOKEN = 'read-replicas-metrics-token-0123456789abcdef';
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

  beforeAll(async () => {
    cluster = await startReplicaCluster({ applyDelayMs: APPLY_DELAY_MS });
    const migrate = await createDataSource(cluster.primaryUrl, 2).initialize();
    await runMigrations(migrate);
    await migrate.destroy();
    t = await createTestApp({ DATABASE_READ_URLS: cluster.replicaUrl, METRICS_TOKEN }, undefined, () => cluster.primaryUrl);
    org = await createOrganization(t);
    reader = await addMember(t, org, 'admin');
    await cluster.caughtUp();
  }, 180_000);

  afterAll(async () => {
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
  const createSpace = async (title: string) =>
    (
      await t.http
        .post(`/v1/orgs/${org.id}/spaces`)
        .set(...org.admin.auth)
        .send({ title })
        .expect(201)
    ).body.id as string;
  const listedBy = async (actor: Actor) => {
    const res = await t.http
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
