import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addMember, createOrganization, unique } from '../support/builders';
import { createChangeRequest } from '../support/comment-builders';
import { createTeam } from '../support/org-admin-builders';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The stall test (issue 25), generated from the committed OpenAPI document: every operation that takes
 * a JSON body or a free-text query parameter gets adversarial inputs built from its schema (every
 * string of the body, through objects, arrays and each `oneOf` branch, holds long runs of the
 * characters a parser treats specially), while a second client probes `/health/live` every 20 ms.
 *
 * Tiers (the file's budget is 90 s on the 2-core CI machine): every operation at 100 KB with the runs
 * mixed; the text-heavy operations (markdown, specs, imports, ingest) with each kind alone at 100 KB
 * and the kinds that cost their parsers most at the body limit. Holds when every answer is < 500, the
 * slowest request takes < 2 s and no probe is blocked for 100 ms or more (probe latency counts from
 * when the probe was due, so an event loop blocked in-process is seen; the time counted as blocked is the part of
 * it the server's thread spent running, so a shared machine's busy cores are not taken for a stall). Prints the
 * worst five.
 * At the body limit the probe bound holds too, and a request takes < 5 s (markdown writes: < 1 s
 * measured; their parse runs in the worker pool). A request over its bound is sent once more and its second time counts: a stall
 * the input causes repeats, a pause of the shared machine does not. STALL_ALL=1 prints every request.
 */
type Json = Record<string, any>;
const spec = JSON.parse(readFileSync(join(__dirname, '../../openapi/quire.json'), 'utf8')) as Json;
const resolve = (node: Json | undefined): Json => {
  let at = node ?? {};
  for (let hops = 0; at.$ref && hops < 20; hops++)
    at = (at.$ref as string)
      .split('/')
      .slice(1)
      .reduce((n: Json, part) => n[part], spec);
  return at;
};

/** Runs of what markdown, YAML/JSON, HTML, Liquid-style blocks, tables and search queries treat specially. */
const KINDS: Record<string, string> = {
  '[': '[',
  '(': '(',
  '`': '`',
  '*': '*',
  _: '_',
  '<': '<',
  '{%': '{%',
  '\\': '\\',
  '|': '|',
  spaces: ' ',
  newlines: '\n',
  'nested lists': '- ',
  'nested quotes': '> ',
  '[a](': '[a](',
  '![': '![',
  '*a': '*a',
};
const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const mixed = (bytes: number) => {
  const units = Object.values(KINDS);
  return units.map((unit) => fill(unit, Math.floor(bytes / units.length))).join('');
};

/** Operations whose bodies are parsed as text (markdown, specs, HTML, ingest): each kind alone, and the body limit. */
const TEXT_HEAVY = new Set([
  'updateChangeRequestContent',
  'importContentInChangeRequest',
  'importContentInChangeRequestPage',
  'importContentInSpace',
  'postCommentInSpace',
  'postCommentInChangeRequest',
  'postCommentReplyInSpace',
  'createOpenAPISpec',
  'createOrUpdateOpenAPISpecBySlug',
  'trackEventsInSiteById',
  'aggregateSiteEvents',
]);
/**
 * Operations whose markdown (markdown-it: search sections, links, the JSON document) is parsed at write
 * time (large bodies in the worker pool): sent last, so the garbage of their large bodies is not
 * collected while the others run.
 */
const MARKDOWN_WRITES = new Set([
  'updateChangeRequestContent',
  'postCommentInSpace',
  'postCommentInChangeRequest',
  'postCommentReplyInSpace',
  'postCommentReplyInChangeRequest',
  'updateCommentInSpace',
  'updateCommentInChangeRequest',
]);
/** The kinds that cost markdown-it most per byte (bench/input.bench.ts), sent at the body limit. */
const LIMIT_KINDS = ['![', '[', '*a'];

/** Optional fields that hold free text (the rest, ids, URLs, settings, are left out unless required). */
const SHORT_FIELDS = new Set(['title', 'name', 'label', 'emoji', 'slug', 'subject']);
const TEXT_FIELDS = new Set(['title', 'markdown', 'description', 'text', 'body', 'document', 'content', 'query', 'search', 'name', 'label', 'message']);

/**
 * A body for the schema: required fields, and the optional ones that hold text; free-text strings
 * share `text`, strings with a format or pattern get a plain valid-looking value (`fixed` names the
 * fixtures' ids by field name), so a request gets past validation to the parsers it tests. `branch`
 * picks each oneOf's branch.
 */
function bodyFor(schema: Json | undefined, text: (strings: number) => string, branch: number, fixed: Record<string, string>): unknown {
  let strings = 0;
  let first = true;
  const build = (node: Json | undefined, depth: number, name: string, fill: string | undefined): unknown => {
    const s = resolve(node);
    if (depth > 8) return undefined;
    const choices = (s.oneOf ?? s.anyOf) as Json[] | undefined;
    // The first oneOf met takes `branch`; those inside it their first (a document: markdown).
    if (choices?.length) {
      const pick = first ? branch % choices.length : 0;
      first = false;
      return build(choices[pick], depth + 1, name, fill);
    }
    if (s.allOf) return Object.assign({}, ...(s.allOf as Json[]).map((part) => build(part, depth + 1, name, fill) as object));
    if (Array.isArray(s.enum)) return s.enum[0];
    if (s.const !== undefined) return s.const;
    const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
    if (type === 'object' || s.properties) {
      const out: Json = {};
      const required = new Set((s.required ?? []) as string[]);
      for (const [key, property] of Object.entries((s.properties ?? {}) as Json)) {
        if (!required.has(key) && !TEXT_FIELDS.has(key)) continue;
        const value = build(property, depth + 1, key, fill);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    if (type === 'array') return [build(s.items, depth + 1, name, fill)];
    if (type === 'integer' || type === 'number') return s.minimum ?? 1;
    if (type === 'boolean') return true;
    if (type !== 'string' && type !== undefined) return undefined;
    if (fixed[name]) return fixed[name];
    // A URL that answers at once (nothing listens there; private addresses are refused before any fetch).
    if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/a';
    if (s.format === 'email') return 'someone@example.com';
    if (s.format === 'date-time') return new Date().toISOString();
    if (s.pattern || s.format) return 'a1';
    // Names and titles are bounded (a title past 1000 characters is refused before any parsing): a short run.
    if (SHORT_FIELDS.has(name)) return fill === undefined ? '' : `${unique('t')} ${fill.slice(0, 100)}`;
    if (fill === undefined) {
      strings++;
      return '';
    }
    return typeof s.maxLength === 'number' ? fill.slice(0, s.maxLength) : fill;
  };
  build(schema, 0, '', undefined);
  first = true;
  return build(schema, 0, '', text(Math.max(1, strings)));
}

function branchesOf(schema: Json | undefined, depth = 0): number {
  const s = resolve(schema);
  if (depth > 8) return 1;
  let most = ((s.oneOf ?? s.anyOf) as Json[] | undefined)?.length ?? 1;
  for (const property of Object.values((s.properties ?? {}) as Json)) most = Math.max(most, branchesOf(property, depth + 1));
  if (s.items) most = Math.max(most, branchesOf(s.items, depth + 1));
  for (const part of [...((s.oneOf ?? []) as Json[]), ...((s.anyOf ?? []) as Json[]), ...((s.allOf ?? []) as Json[])])
    most = Math.max(most, branchesOf(part, depth + 1));
  return Math.min(most, 6);
}

interface Case {
  operationId: string;
  route: string;
  kind: string;
  send: () => Promise<{ status: number; body?: any }>;
  warm: () => Promise<unknown>;
}

describe('no input stalls the server (generated from openapi/quire.json)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp({ BODY_LIMIT: '1mb' })));
  afterAll(() => t.close());

  it('answers every adversarial request < 500, in < 2 s, with /health/live answering in < 100 ms meanwhile', async () => {
    const started = Date.now();
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'read');
    const team = await createTeam(t, org);
    const collection = await createCollection(t, org);
    const space = await createSpace(t, org, { parent: collection.id });
    const cr = await createChangeRequest(t, org, space.id, [{ pageId: 'page-a', title: 'A', slug: 'a', markdown: 'Hello.' }]);
    // The change request's page, by the id it has there.
    const content = await t.http
      .get(`/v1/spaces/${space.id}/change-requests/${cr.id}/content`)
      .set(...org.admin.auth)
      .expect(200);
    const pageId = (content.body.pages as { id: string }[])[0].id;
    const ids: Record<string, string> = {
      organizationId: org.id,
      userId: member.user.id,
      teamId: team.id,
      collectionId: collection.id,
      spaceId: space.id,
      revisionId: space.revisionId,
      changeRequestId: cr.id,
      pageId,
    };
    const fixed: Record<string, string> = {
      page: pageId,
      parent: collection.id,
      space: space.id,
      collection: collection.id,
      team: team.id,
      user: member.user.id,
    };
    const urlOf = (path: string) => path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(ids[name] ?? unique(name)));

    const KB100 = 100 * 1024;
    // The body limit less the JSON around the text (a newline or quote is escaped as two bytes: budgeted).
    const LIMIT = 1024 * 1024;
    const cases: Case[] = [];
    for (const [path, item] of Object.entries(spec.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json) as [string, Json][]) {
        const route = `${method.toUpperCase()} ${path}`;
        const call = () => (t.http as any)[method](urlOf(path)).set(...org.admin.auth);
        const schema = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
        const textQueries = ((op.parameters ?? []) as Json[]).filter(
          (p) => p.in === 'query' && p.name !== 'page' && resolve(p.schema).type === 'string' && !resolve(p.schema).enum,
        );
        if (schema) {
          const heavy = TEXT_HEAVY.has(op.operationId);
          const branches = branchesOf(schema);
          for (let branch = 0; branch < branches; branch++) {
            const variant = branches > 1 ? ` (branch ${branch})` : '';
            cases.push({
              operationId: op.operationId,
              route,
              kind: `mixed 100 KB${variant}`,
              send: () => call().send(bodyFor(schema, (n) => mixed(KB100 / n), branch, fixed)),
              warm: () => call().send(bodyFor(schema, (n) => mixed(1024 / n), branch, fixed)),
            });
            if (!heavy) continue;
            for (const [kind, unit] of Object.entries(KINDS)) {
              cases.push({
                operationId: op.operationId,
                route,
                kind: `${kind} 100 KB${variant}`,
                send: () => call().send(bodyFor(schema, (n) => fill(unit, KB100 / n), branch, fixed)),
                warm: async () => undefined,
              });
            }
            for (const kind of LIMIT_KINDS) {
              // Just under the limit once JSON-encoded (these kinds need no escaping).
              cases.push({
                operationId: op.operationId,
                route,
                kind: `${kind} body limit${variant}`,
                send: () => call().send(bodyFor(schema, (n) => fill(kind, (LIMIT - 4096) / n), branch, fixed)),
                warm: async () => undefined,
              });
            }
          }
        }
        for (const param of textQueries) {
          cases.push({
            operationId: op.operationId,
            route,
            kind: `mixed 100 KB in ?${param.name}`,
            send: () => call().query({ [param.name]: mixed(KB100) }),
            warm: () => call().query({ [param.name]: mixed(1024) }),
          });
        }
      }
    }

    // Warm-up, not measured: each operation once with a small input, so one-time costs (a worker's
    // start, a validator compiled on first use) are not taken for the input's.
    for (const c of cases) if (c.kind.startsWith('mixed')) await c.warm();

    // The probe: due every 20 ms; its latency counts from when it was due. The server runs on this process's main
    // thread, so a probe held up by the input finds that thread busy the whole time; one held up because the shared
    // machine's cores are taken (another test file's process, PostgreSQL) finds it waiting. A probe's `blocked` time
    // is therefore the least of its latency and the CPU time the main thread ran meanwhile (its schedstat, in ns):
    // the bound applies to that.
    const mainThreadCpuMs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    const probes: { due: number; ms: number; blocked: number }[] = [];
    let probing = true;
    const probe = (async () => {
      const origin = performance.now();
      for (let i = 0; probing; i++) {
        const due = origin + i * 20;
        const wait = due - performance.now();
        const cpuBefore = mainThreadCpuMs();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const res = await t.http.get('/health/live');
        const ms = performance.now() - due;
        probes.push({ due, ms, blocked: Math.min(ms, mainThreadCpuMs() - cpuBefore) });
        if (res.status !== 200) throw new Error(`/health/live answered ${res.status}`);
        // Skip the dues already missed: one probe per gap is enough to measure it.
        i = Math.max(i, Math.floor((performance.now() - origin) / 20));
      }
    })();

    // The markdown routes last, so the garbage of their large bodies is not collected during the others.
    cases.sort((a, b) => Number(MARKDOWN_WRITES.has(a.operationId)) - Number(MARKDOWN_WRITES.has(b.operationId)));
    const windows: { c: Case; from: number; to: number; status: number; ms: number; message: string; retried?: boolean }[] = [];
    for (const c of cases) {
      const from = performance.now();
      const res = await c.send();
      const to = performance.now();
      windows.push({ c, from, to, status: res.status, ms: to - from, message: String(res.body?.error?.message ?? '').slice(0, 120) });
    }
    /** The bounds: probe < 100 ms; a request < 2 s, and < 5 s at the body limit. */
    const LIMIT_MS = 5000;
    const overBound = (c: Case, ms: number, probeMs: number) => probeMs >= 100 || ms >= (c.kind.includes('body limit') ? LIMIT_MS : 2000);
    // An input that stalls the loop does it again; a pause of the shared machine (another process, a
    // collection of the previous body's garbage) does not: a request over a bound is sent once more,
    // and its second time counts.
    const during = (from: number, to: number) => probes.filter((p) => p.due >= from && p.due <= to);
    const probeDuring = (from: number, to: number) => Math.max(0, ...during(from, to).map((p) => p.blocked));
    const probeWallDuring = (from: number, to: number) => Math.max(0, ...during(from, to).map((p) => p.ms));
    for (const w of windows) {
      if (!overBound(w.c, w.ms, probeDuring(w.from, w.to))) continue;
      await new Promise((r) => setTimeout(r, 200));
      const from = performance.now();
      const res = await w.c.send();
      const to = performance.now();
      Object.assign(w, { from, to, status: Math.max(w.status, res.status), ms: to - from, retried: true });
      await new Promise((r) => setTimeout(r, 40));
    }
    probing = false;
    await probe;
    // Each request with the slowest probe due while it ran.
    const results = windows.map(({ c, from, to, status, ms, message }) => ({
      route: c.route,
      kind: c.kind,
      status,
      ms,
      message,
      probe: probeDuring(from, to),
      probeWall: probeWallDuring(from, to),
      limit: c.kind.includes('body limit'),
    }));

    if (process.env.STALL_ALL)
      for (const r of results) console.log(`${r.ms.toFixed(0)} probe ${r.probe.toFixed(0)} ${r.status} ${r.route} [${r.kind}] ${r.message}`);
    const show = (r: (typeof results)[number]) =>
      `  ${r.ms.toFixed(0).padStart(6)} ms  probe blocked ${r.probe.toFixed(0).padStart(5)} ms (waited ${r.probeWall.toFixed(0)} ms)  ${r.status}  ${r.route}  [${r.kind}]`;
    const worst = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      [
        `stall: ${cases.length} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ${probes.length} probes of /health/live; worst five:`,
        ...worst.map(show),
        `most blocked probe: ${Math.max(0, ...results.map((r) => r.probe)).toFixed(0)} ms; slowest probe: ${Math.max(0, ...results.map((r) => r.probeWall)).toFixed(0)} ms; slowest at the body limit: ${Math.max(0, ...results.filter((r) => r.limit).map((r) => r.ms)).toFixed(0)} ms`,
      ].join('\n'),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    // Every route, the markdown writes included (their large bodies are parsed in the worker pool): the bounds.
    expect(results.filter((r) => r.probe >= 100).map(show)).toEqual([]);
    expect(results.filter((r) => !r.limit && r.ms >= 2000).map(show)).toEqual([]);
    expect(results.filter((r) => r.limit && r.ms >= LIMIT_MS).map(show)).toEqual([]);
  }, 180_000);
});
