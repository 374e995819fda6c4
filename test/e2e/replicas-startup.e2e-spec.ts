import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { freePort } from '../../src/common/free-port';
import { TEST_DATABASE_URL } from '../support/database';
import { eventually, ServerProcess, spawnServer } from '../support/server-process';

/**
 * Replicas started at the same moment on one empty database (a Kubernetes Deployment of three does
 * exactly this): every one must come up. Migrations, the job queues and their cron schedules, and the
 * environment bootstrap each run once, one replica at a time (session advisory locks), the others
 * finding what the first made.
 */
describe('replicas starting together', () => {
  const started: ServerProcess[] = [];
  const databases: string[] = [];
  const adminUrl = () => {
    const url = new URL(process.env[TEST_DATABASE_URL] as string);
    url.pathname = '/postgres';
    return url.toString();
  };
  const query = async <T>(url: string, sql: string): Promise<T[]> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };

  afterAll(async () => {
    for (const server of started) server.kill();
    await Promise.all(started.map((server) => server.exited));
    for (const name of databases) await query(adminUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  const round = async (replicas: number) => {
    const name = `quire_replicas_${Date.now()}_${randomBytes(3).toString('hex')}`;
    databases.push(name);
    await query(adminUrl(), `CREATE DATABASE ${name}`);
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    const ports = await Promise.all(Array.from({ length: replicas }, () => freePort()));
    const servers = ports.map((port) =>
      spawnServer({
        DATABASE_URL: url.toString(),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        JOBS_ENABLED: 'true',
        BOOTSTRAP_ORG_TITLE: 'Replicas Org',
        BOOTSTRAP_ADMIN_EMAIL: 'replicas@example.com',
      }),
    );
    started.push(...servers);
    // Each one listening, or the reason it is not (its own output).
    await Promise.all(servers.map((server) => server.waitFor('Quire listening', 150_000)));
    for (const port of ports) {
      const ready = await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, 10_000);
      expect(ready).toBe(true);
    }
    for (const server of servers) expect(server.output()).not.toMatch(/start-up failed|40P01/);

    // The shared state exists once: one organization and one administrator, each migration applied once.
    const [orgs] = await query<{ count: number }>(url.toString(), `SELECT count(*)::int AS count FROM organizations WHERE title = 'Replicas Org'`);
    expect(orgs.count).toBe(1);
    const [twice] = await query<{ count: number }>(
      url.toString(),
      `SELECT count(*)::int AS count FROM (SELECT name FROM migrations GROUP BY name HAVING count(*) > 1) t`,
    );
    expect(twice.count).toBe(0);
    const [queues] = await query<{ count: number }>(url.toString(), `SELECT count(*)::int AS count FROM pgboss.queue`);
    expect(queues.count).toBeGreaterThan(0);

    for (const server of servers) server.child.kill('SIGTERM');
    expect(await Promise.all(servers.map((server) => server.exited))).toEqual(servers.map(() => 0));
  };

  it('three replicas started at once on an empty database all reach /health/ready', async () => {
    await round(3);
  }, 200_000);
});
