/* A CPU profile of Quire under load on the two hot-path routes (GET /v1/user, GET /v1/spaces/{id}),
 * printed as its top frames by self time and by package. Standalone:
 *   npm run -s build && node -r @swc-node/register bench/profile.ts
 * PROFILE_SECONDS (default 10) per route, 10 connections; PROFILE_ROUTES=user or =space profiles one of
 * the two; the .cpuprofile is kept in PROFILE_DIR (default a temporary folder) for Chrome DevTools.
 * PROFILE_SERVER=floor profiles the stack's floor (bench/nest-floor.ts) instead, for a frame-by-frame
 * comparison; the summary then covers only the last PROFILE_SECONDS of the run (start-up left out). */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../test/support/database';
import { bootstrapWithCli, freePort, load, ROOT, startProcess } from './harness';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Where a frame's code lives: a package, Quire itself, node's internals, or the engine. */
function owner(url: string): string {
  if (!url) return '(engine/native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node';
  return url.includes('/dist/src/') ? 'quire' : url;
}

/** `lastMs`: only the samples of the profile's last milliseconds (the load, without the start-up); else all. */
export function summarize(file: string, top = 25, lastMs?: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
    endTime: number;
  };
  const hitsOf = new Map<number, number>();
  if (lastMs !== undefined) {
    let at = profile.startTime;
    const from = profile.endTime - lastMs * 1000;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i];
      if (at >= from) hitsOf.set(id, (hitsOf.get(id) ?? 0) + 1);
    });
  }
  const hitCount = (node: ProfileNode) => (lastMs === undefined ? (node.hitCount ?? 0) : (hitsOf.get(node.id) ?? 0));
  const total = profile.nodes.reduce((sum, node) => sum + hitCount(node), 0);
  const frames = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = hitCount(node);
    if (!hits) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*node_modules\//, '').replace(ROOT + '/', '')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    frames.set(key, (frames.get(key) ?? 0) + hits);
    const who = owner(url);
    owners.set(who, (owners.get(who) ?? 0) + hits);
  }
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)}%`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, hits]) => `| ${pct(hits)} | \`${name}\` |`)
      .join('\n');
  return `${total} samples\n\n| self | frame |\n|---|---|\n${rows(frames, top)}\n\n| self | package |\n|---|---|\n${rows(owners, 15)}\n`;
}

async function main() {
  const database = await createTestDatabase();
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'quire-profile-'));
  try {
    const env = { DATABASE_URL: database.url, MIGRATIONS_RUN: 'false', LOG_LEVEL: 'silent' };
    const boot = bootstrapWithCli(env);
    const headers = { authorization: `Bearer ${boot.token}` };
    const limits = { RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_TOKEN: '1000000000' };
    const port = await freePort();
    const floor = process.env.PROFILE_SERVER === 'floor';
    let spaceId: string;
    {
      // The space is made through a plain Quire, so the profiled server (Quire or the floor) only serves the load.
      const maker = await startProcess([MAIN], { ...env, HOST: '127.0.0.1' }, await freePort());
      const res = await fetch(`${maker.url}/v1/orgs/${boot.organizationId}/spaces`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Profiled space' }),
      });
      spaceId = ((await res.json()) as { id: string }).id;
      await maker.stop();
    }
    const quire = floor
      ? await startProcess(
          ['--cpu-prof', '--cpu-prof-dir', dir, '-r', '@swc-node/register', join(__dirname, 'nest-floor.ts'), 'serve'],
          { DATABASE_URL: database.url },
          port,
        )
      : await startProcess(['--cpu-prof', '--cpu-prof-dir', dir, MAIN], { ...env, ...limits, LOG_LEVEL: 'info', HOST: '127.0.0.1' }, port);
    if (!floor) {
      // A replica in service has served writes: one through the profiled Quire, before the profile's window
      // (a write once left Node's async hook on for every later request: decision 68).
      const res = await fetch(`${quire.url}/v1/orgs/${boot.organizationId}/spaces`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Written by the profiled process' }),
      });
      if (res.status !== 201) throw new Error(`the profiled Quire's write answered ${res.status}`);
    }
    const loadStarted = Date.now();
    const routes = { user: '/v1/user', space: `/v1/spaces/${spaceId}` };
    const chosen = (process.env.PROFILE_ROUTES ?? 'user,space').split(',') as (keyof typeof routes)[];
    for (const path of chosen.map((name) => routes[name])) {
      await load(quire.url + path, headers, 1); // warm-up, left out of the summary with start-up
      const figures = await load(quire.url + path, headers, SECONDS);
      process.stdout.write(`${path}: ${figures.requestsPerSecond} req/s (profiled)\n`);
    }
    const profiledMs = Date.now() - loadStarted;
    await quire.stop();
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written in ${dir}`);
    process.stdout.write(
      `\nCPU profile of ${floor ? 'the floor' : 'Quire'}, ${chosen.join(' then ')}, ${SECONDS}s each, 10 connections, start-up left out (${join(dir, file)})\n\n`,
    );
    process.stdout.write(summarize(join(dir, file), 25, profiledMs));
  } finally {
    await database.drop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
