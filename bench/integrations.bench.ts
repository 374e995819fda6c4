import { startBenchApp } from './in-process';
/* Integrations benchmarks: render latency (cold: a fresh workerd instance; warm), events delivered per
 * second to a trivial script, and the server's memory with 50 published integrations.
 * Standalone: `npm run -s build && node -r @swc-node/register bench/integrations.bench.ts`. Uses
 * DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own database. */
import { DataSource } from 'typeorm';
import { EventsService } from '../src/modules/integrations/events.service';
import { SpacesService } from '../src/modules/spaces/spaces.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const WARM = Number(process.env.BENCH_RENDERS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);

/** What `@gitbook/runtime` does for `ui_render` and events, without the bundle: the cost measured is Quire's and workerd's. */
const SCRIPT = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get('event'));
    if (event.type === 'ui_render') {
      const count = (event.state && event.state.count) || 0;
      return Response.json({ type: 'element', state: { count }, props: event.props, element: { type: 'block', children: [{ type: 'button', label: 'n ' + count, onPress: { action: 'x' } }] } });
    }
    return new Response('OK');
  },
};`;

const ms = (n: number) => Math.round(n * 10) / 10;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const bench = await startBenchApp({ JOBS_POLL_INTERVAL_MS: '500' });
  const { app, base, user, headers, organization, membership } = bench;
  const lines: string[] = [];
  try {
    const { space } = await app.get(SpacesService).create(user, membership, { title: 'Bench space' });
    const post = async (path: string, body: object) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const publish = (name: string) =>
      post(`/v1/integrations/${name}`, { title: 'Bench', description: '', scopes: [], script: SCRIPT, organization: organization.id, visibility: 'public' });
    const render = { componentId: 'c', props: {}, context: { type: 'document', spaceId: space.id, editable: true } };
    const timedRender = async () => {
      const started = performance.now();
      await post('/v1/integrations/bench-render/render', render);
      return performance.now() - started;
    };

    await publish('bench-render');
    const installation = await post('/v1/integrations/bench-render/installations', { organization: organization.id });
    const cold: number[] = [];
    for (let i = 0; i < 3; i++) {
      await publish('bench-render'); // a new version: its instance starts on the next call
      cold.push(await timedRender());
    }
    const warm: number[] = [];
    for (let i = 0; i < WARM; i++) warm.push(await timedRender());
    warm.sort((a, b) => a - b);
    cold.sort((a, b) => a - b);
    lines.push(`| render, cold (new workerd instance), median of 3 | ${ms(percentile(cold, 50))} ms |`);
    lines.push(`| render, warm, p50 / p95 of ${WARM} sequential | ${ms(percentile(warm, 50))} / ${ms(percentile(warm, 95))} ms |`);

    const dataSource = app.get(DataSource);
    const integrationId = ((await dataSource.query(`SELECT id FROM integrations WHERE name = 'bench-render'`)) as { id: string }[])[0].id;
    const started = performance.now();
    await dataSource.transaction(async (em) => {
      for (let i = 0; i < EVENTS; i++) {
        await app
          .get(EventsService)
          .emit({ integrationId, installationId: installation.id as string, payload: { type: 'bench_event', installationId: installation.id } }, em);
      }
    });
    for (;;) {
      const [{ pending }] = (await dataSource.query(
        `SELECT count(*)::int AS pending FROM integration_events WHERE integration_id = $1 AND status = 'pending'`,
        [integrationId],
      )) as {
        pending: number;
      }[];
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    lines.push(`| events delivered to a trivial script (${EVENTS}, queued at once) | ${Math.round(EVENTS / seconds)} events/s |`);

    global.gc?.();
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 50; i++) await publish(`bench-many-${i}`);
    await fetch(`${base}/v1/integrations?limit=100`, { headers });
    global.gc?.();
    const after = process.memoryUsage().rss;
    lines.push(
      `| server RSS with 50 published integrations (scripts stay in PostgreSQL until called) | ${Math.round(after / 1048576)} MB (+${Math.round((after - before) / 1048576)} MB) |`,
    );
    process.stdout.write(`\nIntegrations benchmarks (loopback, one process)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`);
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
