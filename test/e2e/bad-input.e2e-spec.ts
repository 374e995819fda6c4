import type { Response } from 'supertest';
import { addMember, createOrganization, unique } from '../support/builders';
import { expectErrorEnvelope } from '../support/contract';
import { createTeam, selfSignedCertificatePem } from '../support/org-admin-builders';
import { operations, type Operation } from '../support/route-catalogue';
import { createCollection, createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Generated from every operation of `openapi/quire.json` (and, for bodies, the public description):
 * NUL in each path parameter, each query parameter and each string body field; null in each body
 * field; no body where one is required; a text/plain body. Sent as the admin who owns every resource
 * named in the path, so a request gets past the guards to the gate and the validation it tests.
 * Every answer must be a 4xx error envelope: never a 500, never a success.
 */
describe('bad input on every route (generated)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('answers each bad request with a 4xx error envelope that names the problem', async () => {
    const org = await createOrganization(t);
    const member = await addMember(t, org, 'read');
    const team = await createTeam(t, org);
    const collection = await createCollection(t, org);
    const space = await createSpace(t, org, { parent: collection.id });
    const saml = await t.http
      .post(`/v1/orgs/${org.id}/saml`)
      .set(...org.admin.auth)
      .send({ label: 'Okta', entityID: 'https://idp.test', certificate: await selfSignedCertificatePem(), ssoURL: 'https://idp.test/sso' })
      .expect(201);
    const translation = await t.http
      .post(`/v1/orgs/${org.id}/translations`)
      .set(...org.admin.auth)
      .send({ title: 'French' })
      .expect(201);
    const ids: Record<string, string> = {
      organizationId: org.id,
      userId: member.user.id,
      teamId: team.id,
      collectionId: collection.id,
      spaceId: space.id,
      revisionId: space.revisionId,
      samlProviderId: saml.body.id,
      translationSettingsId: translation.body.id,
      pageId: unique('page'),
      fileId: unique('file'),
      pagePath: 'intro',
    };
    const urlOf = (op: Operation, override: Record<string, string> = {}) =>
      op.path.replace(/\{(\w+)\}/g, (_m, name: string) => override[name] ?? encodeURIComponent(ids[name] ?? unique(name)));
    const send = (op: Operation, url: string) => t.http[op.method](url).set(...org.admin.auth);

    const failures: string[] = [];
    let requests = 0;
    const check = (what: string, res: Response, expected: { status?: number; mentions?: string } = {}) => {
      requests++;
      const ok =
        res.status >= 400 &&
        res.status < 500 &&
        res.body?.error?.code === res.status &&
        (expected.status === undefined || res.status === expected.status) &&
        (expected.mentions === undefined || String(res.body.error.message).includes(expected.mentions));
      if (!ok) failures.push(`${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    };
    /** For null in a field the description allows null for: anything but a 5xx (it may well succeed). */
    const checkNo5xx = (what: string, res: Response) => {
      requests++;
      if (res.status >= 500) failures.push(`${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    };

    const all = operations();
    for (const op of all) {
      const name = `${op.method.toUpperCase()} ${op.path}`;
      for (const param of op.pathParams) {
        check(`${name} NUL in path ${param}`, await send(op, urlOf(op, { [param]: 'a%00b' })), { status: 400, mentions: 'path: must not contain NUL' });
      }
      for (const param of op.queryParams) {
        const query = `${encodeURIComponent(param)}=a%00b`;
        check(`${name} NUL in query ${param}`, await send(op, `${urlOf(op)}?${query}`), { status: 400, mentions: `query parameter "${param}"` });
      }
      if (!op.body) continue;
      for (const field of op.body.fields) {
        if (field.takesString) {
          check(`${name} NUL in body ${field.name}`, await send(op, urlOf(op)).send({ [field.name]: 'a\u0000b' }), {
            status: 400,
            mentions: `${field.name}: must not contain NUL`,
          });
        }
        if (field.takesStringArray) {
          check(`${name} NUL in body ${field.name}[0]`, await send(op, urlOf(op)).send({ [field.name]: ['a\u0000b'] }), {
            status: 400,
            mentions: `${field.name}.0: must not contain NUL`,
          });
        }
        const withNull = await send(op, urlOf(op)).send({ [field.name]: null });
        if (field.nullable) checkNo5xx(`${name} null in nullable ${field.name}`, withNull);
        else check(`${name} null in ${field.name}`, withNull, { status: 400, mentions: field.name });
      }
      if (op.body.requiredByPublicDescription !== false) {
        check(`${name} without a body`, await send(op, urlOf(op)), { status: 400 });
      }
      check(`${name} text/plain body`, await send(op, urlOf(op)).set('Content-Type', 'text/plain').send('title=x'), { status: 415 });
    }

    console.log(`bad-input: ${all.length} operations, ${requests} requests`);
    expect(failures).toEqual([]);
    expect(all.length).toBeGreaterThanOrEqual(80);
    // The fixtures survived: nothing above was allowed to change them.
    expectErrorEnvelope(
      await t.http
        .get(`/v1/spaces/${space.id}`)
        .set(...org.admin.auth)
        .set('Content-Type', 'text/plain')
        .send('x'),
      415,
    );
    expect((await t.http.get(`/v1/spaces/${space.id}`).set(...org.admin.auth)).status).toBe(200);
  }, 120_000);
});
