import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { IdempotencyInterceptor } from '../../src/common/idempotency/idempotency.interceptor';
import { OrganizationsController } from '../../src/modules/organizations/organizations.controller';
import { SpacesController } from '../../src/modules/spaces/spaces.controller';
import { UsersController } from '../../src/modules/users/users.controller';
import { createUser, unique } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTestApp, TestApp } from '../support/test-app';

describe('Idempotency-Key on creates', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const countOrgs = async (title: string) => Number((await t.dataSource.query(`SELECT count(*) AS n FROM organizations WHERE title = $1`, [title]))[0].n);

  it('answers a retry with the same key and body with the first answer, creating one resource', async () => {
    const actor = await createUser(t);
    const title = unique('Idem');
    const key = unique('key');
    const first = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title })
      .expect(201);
    expectContract(first, 'createOrganization');
    const again = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title })
      .expect(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrgs(title)).toBe(1);
  });

  it('refuses the same key with a different body (422)', async () => {
    const actor = await createUser(t);
    const key = unique('key');
    await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title: unique('One') })
      .expect(201);
    const other = unique('Other');
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title: other });
    expectErrorEnvelope(res, 422, /different request/);
    expect(await countOrgs(other)).toBe(0);
  });

  it('keeps keys per caller: another caller with the same key creates its own', async () => {
    const [alice, bob] = [await createUser(t), await createUser(t)];
    const title = unique('Shared');
    const key = unique('key');
    const a = await t.http
      .post('/v1/orgs')
      .set(...alice.auth)
      .set('Idempotency-Key', key)
      .send({ title })
      .expect(201);
    const b = await t.http
      .post('/v1/orgs')
      .set(...bob.auth)
      .set('Idempotency-Key', key)
      .send({ title })
      .expect(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(await countOrgs(title)).toBe(2);
  });

  it('answers 409 while the first request with the key is in flight, and for an applied request whose answer was lost', async () => {
    const actor = await createUser(t);
    const title = unique('Busy');
    const send = (key: string) =>
      t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .set('Idempotency-Key', key)
        .send({ title });
    // Hold the key as a first attempt in progress would; then as one that committed but could not record its answer.
    const busy = unique('key');
    await send(busy).expect(201);
    await t.dataSource.query(`UPDATE idempotency_keys SET state = 'in_flight', locked_until = now() + interval '1 minute' WHERE key = $1`, [busy]);
    expectErrorEnvelope(await send(busy), 409, /in progress/);
    // Committed, answer not recorded yet, lease alive: the attempt is finishing (a race), still in progress.
    await t.dataSource.query(`UPDATE idempotency_keys SET state = 'committed' WHERE key = $1`, [busy]);
    expectErrorEnvelope(await send(busy), 409, /in progress/);
    // Its lease ran out without an answer: the answer was lost.
    await t.dataSource.query(`UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`, [busy]);
    expectErrorEnvelope(await send(busy), 409, /answer was lost/);
    // An attempt that committed nothing and whose lease ran out (its process died) is taken over.
    await t.dataSource.query(`UPDATE idempotency_keys SET state = 'in_flight', locked_until = now() - interval '1 second' WHERE key = $1`, [busy]);
    await send(busy).expect(201);
    expect(await countOrgs(title)).toBe(2);
  });

  it('creates once when the same request races itself: the other answer is the replay or 409', async () => {
    const actor = await createUser(t);
    const title = unique('Race');
    const key = unique('key');
    const send = () =>
      t.http
        .post('/v1/orgs')
        .set(...actor.auth)
        .set('Idempotency-Key', key)
        .send({ title })
        .then((res) => res);
    const answers = await Promise.all([send(), send(), send()]);
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    for (const res of answers.filter((r) => r.status === 409)) expectErrorEnvelope(res, 409, /in progress/);
    expect(await countOrgs(title)).toBe(1);
  });

  it('does not create twice when the first answer could not be recorded after the write committed', async () => {
    // The write commits, then recording the answer fails (as when the database goes away in between).
    const trigger = `lose_${unique('t').replace(/-/g, '_')}`;
    await t.dataSource.query(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state = 'completed' AND NEW.key LIKE 'lost-%' THEN RAISE EXCEPTION 'answer not recorded'; END IF;
        RETURN NEW;
      END $$`);
    await t.dataSource.query(`CREATE TRIGGER ${trigger} BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      const actor = await createUser(t);
      const title = unique('Lost');
      const key = unique('lost');
      const send = () =>
        t.http
          .post('/v1/orgs')
          .set(...actor.auth)
          .set('Idempotency-Key', key)
          .send({ title });
      await send().expect(201);
      expectErrorEnvelope(await send(), 409, /answer was lost/);
      expect(await countOrgs(title)).toBe(1);
    } finally {
      await t.dataSource.query(`DROP TRIGGER IF EXISTS ${trigger} ON idempotency_keys`);
      await t.dataSource.query(`DROP FUNCTION IF EXISTS ${trigger}()`);
    }
  });

  it('frees the key when the request fails, so it can be used again', async () => {
    const actor = await createUser(t);
    const key = unique('key');
    const bad = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title: 'x'.repeat(500) });
    expectErrorEnvelope(bad, 400);
    expect(await t.dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key])).toHaveLength(0);
    const title = unique('Fixed');
    await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', key)
      .send({ title })
      .expect(201);
    expect(await countOrgs(title)).toBe(1);
  });

  it('refuses a malformed key (400)', async () => {
    const actor = await createUser(t);
    const res = await t.http
      .post('/v1/orgs')
      .set(...actor.auth)
      .set('Idempotency-Key', 'a'.repeat(256))
      .send({ title: unique('Org') });
    expectErrorEnvelope(res, 400, /Idempotency-Key/);
  });

  it('is bound to the routes a POST answering 201 reaches, and to no other route (GETs run without an interceptor)', () => {
    const interceptors = (handler: unknown) => (Reflect.getMetadata(INTERCEPTORS_METADATA, handler as object) as unknown[] | undefined) ?? [];
    const bound = (handler: unknown) => interceptors(handler).filter((one) => one === t.app.get(IdempotencyInterceptor)).length;
    expect(bound(OrganizationsController.prototype.create)).toBe(1);
    expect(interceptors(UsersController.prototype.getAuthenticatedUser)).toEqual([]);
    expect(interceptors(SpacesController.prototype.get)).toEqual([]);
    // POST answering 200 (a move is not a create): other interceptors may be bound (the audit's), never this one.
    expect(bound(SpacesController.prototype.move)).toBe(0);
  });
});
