import { freePort } from '../../src/common/free-port';
import { TEST_DATABASE_URL } from '../support/database';
import { runCli } from '../support/run-cli';
import { eventually, ServerProcess, spawnServer } from '../support/server-process';
import { serveWebsite, Website } from '../support/website-fixture';

/**
 * The drain before a shutdown (Kubernetes, load balancers): on SIGTERM `/health/ready` answers 503 at
 * once while the listener still accepts for SHUTDOWN_DRAIN_DELAY_MS; a request in flight completes;
 * then the listener closes and the process exits 0. A website import waiting on a slow page is the
 * request in flight.
 */
describe('drain on SIGTERM', () => {
  let server: ServerProcess | undefined;
  let site: Website | undefined;
  afterAll(async () => {
    server?.kill();
    await site?.close();
  });

  it('turns readiness 503 before the listener closes, while an in-flight request completes', async () => {
    let releasePage: () => void = () => undefined;
    let pageRequested: () => void = () => undefined;
    const requested = new Promise<void>((resolve) => (pageRequested = resolve));
    site = await serveWebsite({
      '/docs': (_req, res) => {
        pageRequested();
        releasePage = () =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><head><title>Slow</title></head><body><main><h1>Slow</h1><p>Body</p></main></body></html>');
      },
    });

    const env = { DATABASE_URL: process.env[TEST_DATABASE_URL] as string, MIGRATIONS_RUN: 'false', LOG_LEVEL: 'info' };
    const boot = JSON.parse((await runCli(['bootstrap', '--org', 'Drain Org', '--email', 'drain@example.com'], { ...env, LOG_LEVEL: 'silent' })).stdout);
    const auth = { Authorization: `Bearer ${boot.token}`, 'Content-Type': 'application/json' };

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawnServer({
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      SHUTDOWN_TIMEOUT_MS: '20000',
      SHUTDOWN_DRAIN_DELAY_MS: '3000',
    });
    await server.waitFor('Quire listening');
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    const space = (await (
      await fetch(`${base}/v1/orgs/${boot.organizationId}/spaces`, { method: 'POST', headers: auth, body: '{"title":"Docs"}' })
    ).json()) as { id: string };
    const inFlight = fetch(`${base}/v1/spaces/${space.id}/content/import`, {
      method: 'POST',
      headers: { ...auth, Connection: 'close' },
      body: JSON.stringify({ url: `${site.origin}/docs`, source: 'website' }),
    });
    await requested; // the import is now waiting on the slow page
    const signalled = Date.now();
    server.child.kill('SIGTERM');

    // Readiness turns 503 while the listener still answers (liveness stays 200 meanwhile).
    const notReady = await eventually(async () => (await fetch(`${base}/health/ready`)).status === 503, 2_000);
    expect(notReady).toBe(true);
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ error: { code: 503, message: expect.stringMatching(/shutting down/) } });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(3_000);

    // After the delay the listener closes; the request in flight still completes.
    expect(
      await eventually(
        () =>
          fetch(`${base}/health/live`).then(
            () => false,
            () => true,
          ),
        10_000,
      ),
    ).toBe(true);
    releasePage();
    const finished = await inFlight.catch((error: Error) => {
      throw new Error(`the in-flight request failed (${error.message}); server output:\n${server?.output().slice(-4000)}`);
    });
    expect(finished.status).toBe(201);
    expect(await server.exited).toBe(0);
  }, 60_000);
});
