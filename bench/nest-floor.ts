/* The floor of the stack: the least a NestJS app on @nestjs/platform-express does for the two hot-path
 * routes, against the bare node:http + pg server (bench/bare-server.ts) and Quire, interleaved.
 *
 *   npm run -s build && node -r @swc-node/register bench/nest-floor.ts
 *
 * The minimal app (started by this same file with `serve` as argument) has one global guard doing
 * what the bare server does to authenticate (SHA-256 of the bearer secret, one named prepared
 * statement), and one controller answering `GET /v1/user` and `GET /v1/spaces/:id` with the bare
 * server's JSON, through Nest's own router, guard, parameter and reply plumbing and express's router:
 * no middleware, no body parser, no helmet, no log line, no metrics, no rate limit. Quire cannot be
 * faster than it on this stack, so floor ÷ bare bounds Quire ÷ bare (the goal is ≥ 0.6).
 *
 * Each server is its own process on one database; rounds alternate (bare, floor, Quire, …) and the
 * figures are medians: requests per second and the server's CPU per request (user + system time from
 * /proc/<pid>/stat over the round, divided by the requests it answered), which a loaded machine
 * disturbs less than throughput. FLOOR_SECONDS (default 5) per round, FLOOR_ROUNDS (default 5),
 * 10 connections. QUIRE_BASE=<path to another build's main.js> adds that build as a fourth server (several:
 * `name=<main.js>` separated by commas, each named in the table)
 * (an A/B of two Quire builds under the same load); FLOOR_SKIP=floor leaves the minimal app out of such a run;
 * QUIRE_NODE_FLAGS (space-separated) are given to node for the first Quire only (an A/B of node flags);
 * FLOOR_REPLY_VARIANT=true adds the minimal app with Quire's JSON writer (`JsonReplyAdapter`) as "floor+reply";
 * FLOOR_ROUTES_VARIANT=<n> adds it with n more routes registered ahead of its two (what a route table's size costs).
 * FLOOR_TOGETHER=true loads every server at the same moment in each round instead of one after another: on a
 * machine busy with other work, each server then meets the same contention, and the CPU per request (not the
 * throughput, which the shared load generator bounds) is the figure to compare.
 */
import {
  Controller,
  createParamDecorator,
  Get,
  Injectable,
  Module,
  NotFoundException,
  Param,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import type { Request } from 'express';
import { JsonReplyAdapter, weakEtag } from '../src/common/http/json-reply.adapter';
import { createTestDatabase } from '../test/support/database';
import { bootstrapWithCli, freePort, load, ROOT, startProcess, type Figures, type Server } from './harness';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const publicUrl = process.env.PUBLIC_URL ?? 'http://localhost';

interface FloorUser {
  id: string;
  display_name: string;
  email: string;
}

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// A parameter decorator as Quire's @CurrentUser: Nest's param plumbing is part of the floor.
const FloorCaller = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<{ floorUser: FloorUser }>().floorUser);

@Injectable()
class FloorGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request & { floorUser?: FloorUser }>();
    const secret = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!secret) throw new UnauthorizedException();
    const { rows } = await pool.query<FloorUser>({
      name: 'user-by-token',
      text: `SELECT u.id, u.display_name, u.email, u.photo_url FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
      values: [hash('sha256', secret, 'hex')],
    });
    if (!rows[0]) throw new UnauthorizedException();
    request.floorUser = rows[0];
    return true;
  }
}

@Controller('v1')
class FloorController {
  @Get('user')
  user(@FloorCaller() user: FloorUser) {
    return { object: 'user', id: user.id, displayName: user.display_name, email: user.email, urls: { location: `${publicUrl}/v1/users/${user.id}` } };
  }

  @Get('spaces/:id')
  async space(@Param('id') id: string, @FloorCaller() user: FloorUser) {
    const { rows } = await pool.query({
      name: 'space-for-user',
      text: `SELECT s.* FROM spaces s JOIN memberships m ON m.organization_id = s.organization_id AND m.user_id = $2 WHERE s.id = $1 AND s.deleted_at IS NULL`,
      values: [id, user.id],
    });
    const s = rows[0] as Record<string, unknown> | undefined;
    if (!s) throw new NotFoundException();
    return { object: 'space', id: s.id, title: s.title, emoji: s.emoji, visibility: s.visibility, organization: s.organization_id, revision: s.revision_id };
  }
}

@Module({ controllers: [FloorController], providers: [{ provide: APP_GUARD, useClass: FloorGuard }] })
class FloorModule {}

async function serve(): Promise<void> {
  // FLOOR_REPLY=quire: Quire's JSON writer instead of express's res.json (the one part Quire made cheaper than stock).
  const quireReply = process.env.FLOOR_REPLY === 'quire';
  const adapter = quireReply ? new JsonReplyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, adapter, { logger: false, bodyParser: false });
  app.disable('x-powered-by');
  if (quireReply) app.set('etag', weakEtag);
  // FLOOR_EXTRA_ROUTES=n: n more routes ahead of the two measured, as an app of n routes has (express tries them in turn).
  const express = app.getHttpAdapter().getInstance() as { get(path: string, handler: (req: unknown, res: { end(): void }) => void): void };
  for (let i = 0; i < Number(process.env.FLOOR_EXTRA_ROUTES ?? 0); i++) express.get(`/v1/other-${i}/:id`, (_req, res) => res.end());
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  process.on('SIGTERM', () => void app.close().then(() => pool.end().then(() => process.exit(0))));
}

/** user + system CPU time of a process so far, in microseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
  return (ticks * 1_000_000) / 100;
}

interface Measured extends Figures {
  cpuPerRequest: number;
}

async function measure(server: Server, path: string, headers: Record<string, string>, seconds: number): Promise<Measured> {
  const pid = server.process.pid as number;
  const before = cpuMicros(pid);
  const figures = await load(server.url + path, headers, seconds);
  const cpu = cpuMicros(pid) - before;
  if (figures.non2xx || figures.errors) throw new Error(`${server.url}${path}: ${figures.non2xx} non-2xx, ${figures.errors} errors`);
  return { ...figures, cpuPerRequest: cpu / (figures.requestsPerSecond * seconds) };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function compare(): Promise<void> {
  const SECONDS = Number(process.env.FLOOR_SECONDS ?? 5);
  const ROUNDS = Number(process.env.FLOOR_ROUNDS ?? 5);
  const TOGETHER = process.env.FLOOR_TOGETHER === 'true';
  const main = join(ROOT, 'dist', 'src', 'main.js');
  const database = await createTestDatabase();
  const servers: [string, Server][] = [];
  try {
    const env = { DATABASE_URL: database.url, MIGRATIONS_RUN: 'false', LOG_LEVEL: 'silent' };
    const boot = bootstrapWithCli(env);
    const headers = { authorization: `Bearer ${boot.token}` };
    const quireEnv = { ...env, RATE_LIMIT_PER_ADDRESS: '1000000000', RATE_LIMIT_PER_TOKEN: '1000000000', LOG_LEVEL: 'info', HOST: '127.0.0.1' };
    const node = (file: string) => ['-r', '@swc-node/register', file];
    servers.push(['bare', await startProcess(node(join(__dirname, 'bare-server.ts')), { DATABASE_URL: database.url }, await freePort())]);
    if (process.env.FLOOR_SKIP !== 'floor')
      servers.push(['floor', await startProcess([...node(__filename), 'serve'], { DATABASE_URL: database.url }, await freePort())]);
    if (process.env.FLOOR_ROUTES_VARIANT) {
      const extra = process.env.FLOOR_ROUTES_VARIANT;
      servers.push([
        `floor+${extra} routes`,
        await startProcess([...node(__filename), 'serve'], { DATABASE_URL: database.url, FLOOR_EXTRA_ROUTES: extra }, await freePort()),
      ]);
    }
    if (process.env.FLOOR_REPLY_VARIANT === 'true') {
      servers.push(['floor+reply', await startProcess([...node(__filename), 'serve'], { DATABASE_URL: database.url, FLOOR_REPLY: 'quire' }, await freePort())]);
    }
    const quireFlags = process.env.QUIRE_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    servers.push(['quire', await startProcess([...quireFlags, main], quireEnv, await freePort())]);
    // QUIRE_BASE=<main.js>, or several as name=<main.js> separated by commas: other builds beside this one.
    const bases: [string, Server][] = [];
    for (const [index, entry] of (process.env.QUIRE_BASE?.split(',').filter(Boolean) ?? []).entries()) {
      const [name, file] = entry.includes('=') ? entry.split('=') : [index ? `quire-base-${index + 1}` : 'quire-base', entry];
      bases.push([name, await startProcess([file], quireEnv, await freePort())]);
    }
    servers.push(...bases);

    const quire = servers.find(([name]) => name === 'quire')![1];
    const created = await fetch(`${quire.url}/v1/orgs/${boot.organizationId}/spaces`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Floor space' }),
    });
    const spaceId = ((await created.json()) as { id: string }).id;
    // The other build serves a write too, so both are in the state of a replica in service (decision 68).
    for (const [name, base] of bases) {
      const written = await fetch(`${base.url}/v1/orgs/${boot.organizationId}/spaces`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Floor space (base)' }),
      });
      if (written.status !== 201) throw new Error(`${name}: the write answered ${written.status}`);
    }

    process.stdout.write(`\n${ROUNDS} interleaved rounds of ${SECONDS}s per server, 10 connections, loopback, one database; medians\n\n`);
    process.stdout.write('| route | server | req/s | ÷ bare (per round) | CPU/request µs | ÷ bare CPU |\n|---|---|---|---|---|---|\n');
    for (const [route, path] of [
      ['GET /v1/user', '/v1/user'],
      ['GET /v1/spaces/{id}', `/v1/spaces/${spaceId}`],
    ]) {
      for (const [, server] of servers) await load(server.url + path, headers, 2); // warm-up
      const results = new Map<string, Measured[]>(servers.map(([name]) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        if (TOGETHER) {
          // Every server under load at the same moment: the same contention for each, so their CPU per request compares.
          const figures = await Promise.all(servers.map(([, server]) => measure(server, path, headers, SECONDS)));
          servers.forEach(([name], i) => results.get(name)!.push(figures[i]));
          continue;
        }
        // Rotate the order each round so no server always runs right after another.
        for (let i = 0; i < servers.length; i++) {
          const [name, server] = servers[(i + round) % servers.length];
          results.get(name)!.push(
            await measure(server, path, headers, SECONDS).catch((error: Error) => {
              throw new Error(`${name}: ${error.message}`);
            }),
          );
        }
      }
      const bare = results.get('bare')!;
      for (const [name, figures] of results) {
        const ratios = figures.map((f, round) => f.requestsPerSecond / bare[round].requestsPerSecond);
        const cpu = median(figures.map((f) => f.cpuPerRequest));
        process.stdout.write(
          `| ${route} | ${name} | ${Math.round(median(figures.map((f) => f.requestsPerSecond)))} | ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) | ${Math.round(cpu)} | ${(cpu / median(bare.map((f) => f.cpuPerRequest))).toFixed(2)} |\n`,
        );
      }
    }
  } finally {
    for (const [, server] of servers) await server.stop();
    await database.drop();
  }
}

if (require.main === module) {
  (process.argv[2] === 'serve' ? serve() : compare()).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
