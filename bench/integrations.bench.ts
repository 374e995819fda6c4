import { startBenchApp } from './in-process';
/* Integrations benchmarks: render latency (cold: a fresh workerd instance; warm), events delivered per
 * second to a trivial script, the server's memory with 50 published integrations, each workerd
 * process's memory, and the time from a runaway `ctx.waitUntil` (after the answer) to its process's kill.
 * Standalone: `npm run -s build && node -r @swc-node/register bench/integrations.bench.ts`. Uses
 * DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own database. */
import { DataSource } from 'typeorm';
import { existsSync, readFileSync } from 'node:fs';
import { EventsService } from '../src/modules/integrations/events.service';
import { ScriptSandbox } from '../src/modules/integrations/runtime/script-sandbox';
import { SpacesService } from '../src/modules/spaces/spaces.service';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const WARM = Number(process.env.BENCH_RENDERS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const COLD = Number(process.env.BENCH_COLD_RENDERS ?? 10);
const RUNAWAYS = Number(process.env.BENCH_RUNAWAYS ?? 3);

/** Answers at once, then loops forever in `ctx.waitUntil`. */
const RUNAWAY = `
export default {
  async fetch(request, env, ctx) {
    ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 50)).then(() => { for (;;) {} }));
    return new Response('answered');
  },
};`;

const rssMb = (pid: number | undefined) => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(pid && existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, 'utf8') : '')?.[1];
  return kb ? Math.round(Number(kb) / 1024) : 0;
};

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
    for (let i = 0; i < COLD; i++) {
      await publish('bench-render'); // a new version: its instance starts on the next call
      cold.push(await timedRender());
    }
    const warm: number[] = [];
    for (let i = 0; i < WARM; i++) warm.push(await timedRender());
    warm.sort((a, b) => a - b);
    cold.sort((a, b) => a - b);
    lines.push(`| render, cold (new workerd instance), p50 / p95 of ${COLD} | ${ms(percentile(cold, 50))} / ${ms(percentile(cold, 95))} ms |`);
    lines.push(`| render, warm, p50 / p95 of ${WARM} sequential | ${ms(percentile(warm, 50))} / ${ms(percentile(warm, 95))} ms |`);

    const sandbox = app.get(ScriptSandbox);
    const renderProcess = sandbox.processes().find((p) => p.pid);
    lines.push(`| workerd process of one integration after ${WARM} warm renders (RSS) | ${rssMb(renderProcess?.pid)} MB |`);

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

    // A runaway waitUntil: from the answer to the process's end (the after-answer budget, then the watcher's sample and the kill).
    const budget = app.get(ScriptSandbox).limits.afterAnswerMs;
    await post('/v1/integrations/bench-runaway', {
      title: 'Runaway',
      description: '',
      scopes: [],
      script: RUNAWAY,
      organization: organization.id,
      visibility: 'public',
    });
    const kills: number[] = [];
    for (let i = 0; i < RUNAWAYS; i++) {
      const res = await fetch(`${base}/v1/integrations/bench-runaway/public/go`);
      await res.text();
      const answered = performance.now();
      const [{ id }] = (await dataSource.query(`SELECT id FROM integrations WHERE name = 'bench-runaway'`)) as { id: string }[];
      const pid = sandbox.processes().find((p) => p.key.startsWith(`${id}:`))?.pid;
      while (pid && existsSync(`/proc/${pid}`) && performance.now() - answered < 30_000) await new Promise((resolve) => setTimeout(resolve, 10));
      kills.push(performance.now() - answered);
    }
    kills.sort((a, b) => a - b);
    lines.push(
      `| runaway \`waitUntil\` (a loop after the answer): answer → process killed, budget ${budget} ms, ${RUNAWAYS} runs | min ${ms(kills[0])} / median ${ms(percentile(kills, 50))} / max ${ms(kills[kills.length - 1])} ms |`,
    );

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
