import { addMember, createOrganization } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { petstore } from '../support/openapi-fixtures';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
const decode = (page: string) => JSON.parse(Buffer.from(page, 'base64url').toString('utf8')) as { l: string; k: unknown[] };

/**
 * Forged cursors of a list, from a real one: NUL or an unpaired surrogate in each string, each value
 * of the other type, a date that is not one, another list's key, the wrong number of values, and
 * shapes that are not a cursor at all. `strict`: refused whatever the column; the others are refused
 * when the column cannot hold the value (a string for a timestamp) and otherwise only place the page
 * (a number compared with a text id): never a 5xx.
 */
function forgeries(real: string): { what: string; page: string; strict: boolean }[] {
  const { l, k } = decode(real);
  const out = [
    { what: 'another list', page: encode({ l: `${l}x`, k }), strict: true },
    { what: 'one value more', page: encode({ l, k: [...k, 1] }), strict: true },
    { what: 'no values', page: encode({ l, k: [] }), strict: true },
    { what: 'an array', page: encode([l, k]), strict: true },
    { what: 'null', page: encode(null), strict: true },
    { what: 'not JSON', page: Buffer.from('{"l":').toString('base64url'), strict: true },
    { what: 'not base64url', page: 'a+b/c=', strict: true },
  ];
  k.forEach((value, index) => {
    const at = (next: unknown) => encode({ l, k: k.map((v, i) => (i === index ? next : v)) });
    out.push({ what: `NUL in value ${index}`, page: at('a\u0000b'), strict: true });
    out.push({ what: `unpaired surrogate in value ${index}`, page: at('a\ud800b'), strict: true });
    out.push({ what: `value ${index} as an object`, page: at({ a: 1 }), strict: true });
    out.push({ what: `value ${index} of the other type`, page: at(typeof value === 'number' ? 'x' : 12345), strict: false });
    out.push({ what: `value ${index} a number out of range`, page: at(1e300), strict: false });
    if (typeof value === 'string') out.push({ what: `value ${index} not a date`, page: at('2026-13-45T99:99:99Z'), strict: false });
  });
  return out;
}

describe('no input reaches a 500 (issue 25)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('refuses forged page cursors with 400 "page: invalid cursor" on every kind of list', async () => {
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'read');
    const collection = await createCollection(t, org);
    const other = await createCollection(t, org);
    const space = await createSpace(t, org, { parent: collection.id });
    await createSpace(t, org, { parent: collection.id });
    for (const markdown of ['first', 'second']) {
      await t.http
        .post(`/v1/spaces/${space.id}/comments`)
        .set(...org.admin.auth)
        .send({ body: { markdown } })
        .expect(200);
    }
    expect(other.id).toBeTruthy();
    const lists = [
      `/v1/orgs/${org.id}/members`,
      `/v1/orgs/${org.id}/spaces`,
      `/v1/orgs/${org.id}/collections`,
      `/v1/collections/${collection.id}/spaces`,
      `/v1/spaces/${space.id}/comments`,
      `/v1/orgs/${org.id}/members/${org.admin.user.id}/spaces`,
    ];
    const failures: string[] = [];
    let checked = 0;
    // Forgeries the decoder lets through and the column refuses (a string that is no timestamp).
    let refusedByColumn = 0;
    for (const list of lists) {
      const first = await t.http
        .get(`${list}?limit=1`)
        .set(...org.admin.auth)
        .expect(200);
      const real = first.body.next?.page as string | undefined;
      if (!real) {
        failures.push(`${list}: no second page to forge from`);
        continue;
      }
      // The real cursor still works.
      expect((await t.http.get(`${list}?limit=1&page=${real}`).set(...org.admin.auth)).status).toBe(200);
      for (const { what, page, strict } of forgeries(real)) {
        checked++;
        const res = await t.http.get(`${list}?limit=1&page=${encodeURIComponent(page)}`).set(...org.admin.auth);
        const refused = res.status === 400 && res.body?.error?.message === 'page: invalid cursor';
        if (strict ? !refused : !refused && res.status !== 200) failures.push(`${list} ${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (!strict && refused) refusedByColumn++;
      }
    }
    // Lists with no second page here: a forged cursor of their own key.
    for (const [list, l, k] of [
      ['/v1/integrations', 'integrations:name:asc', ['a\u0000b']],
      [`/v1/orgs/${org.id}/members`, `members:joinedAt:desc`, ['a\u0000b', 'x']],
    ] as const) {
      checked++;
      const res = await t.http.get(`${list}?page=${encode({ l, k })}`).set(...org.admin.auth);
      if (res.status !== 400 || res.body?.error?.message !== 'page: invalid cursor')
        failures.push(`${list} forged NUL → ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(60);
    expect(refusedByColumn).toBeGreaterThanOrEqual(lists.length);
    expect(member.user.id).toBeTruthy();
  }, 60_000);

  describe('OpenAPI text', () => {
    const create = (org: { id: string; admin: { auth: [string, string] } }, slug: string, text: string) =>
      t.http
        .post(`/v1/orgs/${org.id}/openapi`)
        .set(...org.admin.auth)
        .send({ slug, source: { text } });

    it('refuses NUL in a JSON string (\\u0000) or a YAML one (\\0) with 400 naming the place, and creates nothing', async () => {
      const org = await createOrganization(t);
      const spec = petstore() as { info: Record<string, unknown> };
      const json = JSON.stringify({ ...spec, info: { ...spec.info, title: 'Pet\u0000store' } });
      const res = await create(org, 'nul-json', json);
      expectErrorEnvelope(res, 400);
      expect(res.body.error.message).toContain('#/info/title');
      expect(res.body.error.message).toContain('NUL');

      const yaml = 'openapi: 3.0.3\ninfo:\n  title: "Pet\\0store"\n  version: "1"\npaths: {}\n';
      const yamlRes = await create(org, 'nul-yaml', yaml);
      expectErrorEnvelope(yamlRes, 400);
      expect(yamlRes.body.error.message).toContain('#/info/title');

      const key = JSON.stringify({ ...spec, paths: { '/a\u0000b': {} } });
      const keyRes = await create(org, 'nul-key', key);
      expectErrorEnvelope(keyRes, 400);
      expect(keyRes.body.error.message).toContain('#/paths/~1a\\u0000b');

      const surrogate = JSON.stringify({ ...spec, info: { ...spec.info, title: 'Pet\ud800store' } });
      expectErrorEnvelope(await create(org, 'surrogate', surrogate), 400);

      const list = await t.http
        .get(`/v1/orgs/${org.id}/openapi`)
        .set(...org.admin.auth)
        .expect(200);
      expect(list.body.items).toEqual([]);
    });

    it('refuses a document nested past 512 levels (JSON 20,000 deep, YAML flow and block) with 400', async () => {
      const org = await createOrganization(t);
      const cases: [string, string][] = [
        ['json', `{"openapi":"3.0.3","x":${'['.repeat(20000)}${']'.repeat(20000)}}`],
        ['json-513', `{"openapi":"3.0.3","x":${'['.repeat(513)}${']'.repeat(513)}}`],
        ['yaml-flow', `openapi: 3.0.3\nx: ${'['.repeat(20000)}${']'.repeat(20000)}\n`],
        ['yaml-block', `openapi: 3.0.3\nx:\n  ${'- '.repeat(20000)}a\n`],
      ];
      for (const [slug, text] of cases) {
        const res = await create(org, slug, text);
        expectErrorEnvelope(res, 400);
        expect([slug, res.body.error.message]).toEqual([slug, expect.stringContaining('nested deeper than 512 levels')]);
      }
      const res = await create(org, 'explicit-keys', `openapi: 3.0.3\nx:\n${'  ? '.repeat(300)}a\n`);
      expectErrorEnvelope(res, 400);
      // Within the limit, nesting is only the validator's business.
      const ok = await create(org, 'nested-511', JSON.stringify({ ...petstore(), 'x-deep': JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`) }));
      expect(ok.status).toBe(201);
    }, 60_000);
  });

  it('answers malformed ids in the path with 400 naming the parameter, never a success (deleteCommentInSpace)', async () => {
    const org = await createOrganization(t);
    const space = await createSpace(t, org);
    for (const id of ['a b', 'x'.repeat(65), 'é', 'a.b', '%2e%2e', "a'b"]) {
      const res = await t.http.delete(`/v1/spaces/${space.id}/comments/${encodeURIComponent(id)}`).set(...org.admin.auth);
      expectErrorEnvelope(res, 400);
      expect(res.body.error.message).toBe('commentId: must be an id (1 to 64 letters, digits, _ or -)');
      const reply = await t.http.delete(`/v1/spaces/${space.id}/comments/${encodeURIComponent(id)}/replies/r1`).set(...org.admin.auth);
      expect([400, 404]).toContain(reply.status);
    }
    // A well-formed id of no comment is the documented "did not exist".
    expect((await t.http.delete(`/v1/spaces/${space.id}/comments/no-such-comment`).set(...org.admin.auth)).status).toBe(204);
    // Ids of every kind, on a route that reads them.
    for (const url of [
      `/v1/spaces/${encodeURIComponent('a b')}`,
      `/v1/orgs/${encodeURIComponent('x'.repeat(65))}`,
      `/v1/collections/${encodeURIComponent('é')}`,
    ]) {
      const res = await t.http.get(url).set(...org.admin.auth);
      expect([url, res.status >= 400 && res.status < 500]).toEqual([url, true]);
    }
  });
});
