import { freePort } from '../../src/common/free-port';
import { TEST_DATABASE_URL } from '../support/database';
import { runCli } from '../support/run-cli';
import { ServerProcess, spawnServer } from '../support/server-process';
import { serveWebsite, Website } from '../support/website-fixture';

/**
 * Graceful shutdown: on SIGTERM the server stops accepting connections, lets the requests it is
 * serving finish, then exits 0. A website import that waits on a slow page is the in-flight request.
 */
describe('graceful shutdown', () => {
  let server: ServerProcess | undefined;
  let site: Website | undefined;
  afterAll(async () => {
    server?.kill();
    await site?.close();
  });

  it('finishes an in-flight request after SIGTERM, refuses new connections, and exits 0', async () => {
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
    const boot = JSON.parse((await runCli(['bootstrap', '--org', 'Shutdown Org', '--email', 'shutdown@example.com'], { ...env, LOG_LEVEL: 'silent' })).stdout);
    const auth = { Authorization: `Bearer ${boot.token}`, 'Content-Type': 'application/json' };

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawnServer({ ...env, PORT: String(port), HOST: '127.0.0.1', OUTBOUND_ALLOW_PRIVATE: 'true', SHUTDOWN_TIMEOUT_MS: '20000' });
    await server.waitFor('Quire listening');

    const space = (await (
      await fetch(`${base}/v1/orgs/${boot.organizationId}/spaces`, { method: 'POST', headers: auth, body: '{"title":"Docs"}' })
    ).json()) as { id: string };
    const inFlight = fetch(`${base}/v1/spaces/${space.id}/content/import`, {
      method: 'POST',
      headers: { ...auth, Connection: 'close' },
      body: JSON.stringify({ url: `${site.origin}/docs`, source: 'website' }),
    });
    await requested; // the import is now waiting on the slow page
    server.child.kill('SIGTERM');

    // No longer accepting, soon after the signal (a few hundred milliseconds here; longer on a loaded machine), while
    // the import is still waiting on its page.
    let refused = false;
    for (const signalled = Date.now(); !refused && Date.now() - signalled < 10_000;) {
      refused = await fetch(`${base}/health/live`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refused).toBe(true);
    releasePage();
    // On a failure, the server's own lines say what its shutdown did.
    const finished = await inFlight.catch((error: Error) => {
      throw new Error(`the in-flight request failed (${error.message}); server output:\n${server?.output().slice(-4000)}`);
    });
    expect(finished.status).toBe(201);
    expect(await finished.json()).toMatchObject({ importedResources: 1 });
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/"msg":"stopped"/);
  }, 60_000);
});
