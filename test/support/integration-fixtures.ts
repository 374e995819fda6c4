import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Actor } from './builders';
import { expectContract } from './contract';
import type { TestApp } from './test-app';

/** Publishes a hand-written script (not built by the CLI) for the sandbox's own tests. */
export async function publishScript(t: TestApp, actor: Actor, organization: string, name: string, script: string, overrides: Record<string, unknown> = {}) {
  const res = await t.http
    .post(`/v1/integrations/${name}`)
    .set(...actor.auth)
    .send({ runtime: 'v2', title: 'Test script', description: '', scopes: [], script, organization, visibility: 'public', ...overrides });
  if (res.status !== 200) throw new Error(`publish ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { name: string; version: number };
}

/** Waits until the event is delivered (its status leaves `pending`), checking the body against the public schema. */
export async function waitForEvent(t: TestApp, actor: Actor, name: string, eventId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.http.get(`/v1/integrations/${name}/events/${eventId}`).set(...actor.auth);
    if (res.status === 200 && res.body.event.status !== 'pending') {
      expectContract(res, 'getIntegrationEvent');
      return res.body as { event: { status: string; payload: Record<string, unknown> }; trace: { logs: { message: string; level: string }[] } };
    }
    if (Date.now() > until) throw new Error(`event ${eventId} still pending: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Waits until no event of the integration is still `pending` (lists show handled events only), nor to be fanned out from a batch of page views. */
export async function eventsSettled(t: TestApp, name: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [{ batches }] = await t.dataSource.query(
      `SELECT count(*)::int AS batches FROM pgboss.job WHERE name = 'integrations.site-views' AND state IN ('created', 'retry', 'active')`,
    );
    if (batches > 0) {
      if (Date.now() > until) throw new Error(`${batches} batches of page views still to fan out`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM integration_events e JOIN integrations i ON i.id = e.integration_id WHERE i.name = $1 AND e.status = 'pending'`,
      [name],
    );
    if (n === 0) return;
    if (Date.now() > until) throw new Error(`${n} events of ${name} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Events of an integration whose payload type is `type`, newest first (once none is pending). */
export async function eventsOfType(t: TestApp, actor: Actor, name: string, type: string): Promise<{ id: string; payload: Record<string, unknown> }[]> {
  await eventsSettled(t, name);
  const res = await t.http.get(`/v1/integrations/${name}/events?limit=100`).set(...actor.auth);
  return (res.body.items as { id: string; payload: Record<string, unknown> }[]).filter((e) => e.payload.type === type);
}

/** A local HTTP receiver (a dev tunnel, a webhook target) that records what it gets. */
export async function receiver(handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void) {
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
