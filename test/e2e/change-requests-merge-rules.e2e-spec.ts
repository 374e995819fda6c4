import { itChecksAccess } from '../support/access-checks';
import { Actor, addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { ChangeRequestsService } from '../../src/modules/change-requests/change-requests.service';
import { ReviewsService } from '../../src/modules/change-requests/reviews/reviews.service';
import { MERGE_RULES_CONTEXT_PRESENTER, type MergeRulesContextPresenter } from '../../src/modules/change-requests/reviews/review.read-model';
import type { MergeRulesEvaluationContextJson } from '../../src/modules/change-requests/reviews/review.presenter';
import { SpaceUnitOfWork } from '../../src/modules/space-writes/space-unit-of-work';
import { User } from '../../src/modules/users/user.entity';
import { UsersService } from '../../src/modules/users/users.service';

describe('merge rules: the public mergeRules of spaces and organizations, the approvals extension, the merge check', () => {
  let t: TestApp;
  let org: OrgFixture;
  let author: Actor;
  let reviewer: Actor;
  let second: Actor;
  let reader: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    author = await addMember(t, org, 'edit');
    reviewer = await addMember(t, org, 'review');
    second = await addMember(t, org, 'review');
    reader = await addMember(t, org, 'read');
  });
  afterAll(() => t.close());

  const crs = (spaceId: string) => `/v1/spaces/${spaceId}/change-requests`;
  const as = (actor: Actor) => ({
    get: (path: string) => t.http.get(path).set(...actor.auth),
    post: (path: string, body: object = {}) =>
      t.http
        .post(path)
        .set(...actor.auth)
        .send(body),
    put: (path: string, body: object) =>
      t.http
        .put(path)
        .set(...actor.auth)
        .send(body),
    patch: (path: string, body: object) =>
      t.http
        .patch(path)
        .set(...actor.auth)
        .send(body),
  });
  async function openChangeRequest(spaceId: string, by: Actor = author): Promise<string> {
    const res = await as(by).post(crs(spaceId), { subject: 'to review' }).expect(201);
    return `${crs(spaceId)}/${res.body.id as string}`;
  }
  const insertPage = (cr: string, title: string, by: Actor = author) =>
    as(by).post(`${cr}/content`, { changes: [{ operation: 'insert_page', title, document: { markdown: `# ${title}\n\ntext` } }] });
  const setSpaceRules = (spaceId: string, mergeRules: object) => as(org.admin).patch(`/v1/spaces/${spaceId}`, { mergeRules });

  describe('the public mergeRules', () => {
    it('a space inherits by default; PATCH sets, returns and clears its own, as the public schemas say', async () => {
      const s = await createSpace(t, org);
      const initial = await as(reader).get(`/v1/spaces/${s.id}`).expect(200);
      expectContract(initial, 'getSpaceById');
      expect(initial.body.mergeRules).toEqual({ type: 'inherit' });
      const rules = {
        type: 'rules',
        rules: [
          { rule: 'require_at_least_one_approved_review' },
          { rule: 'require_specific_reviewers', users: [reviewer.user.id] },
          { rule: 'allow_bypass', users: [org.admin.user.id] },
          { rule: 'custom', expression: 'changeRequest.subject != ""', message: 'a subject, please' },
        ],
      };
      const set = await setSpaceRules(s.id, rules).expect(200);
      expectContract(set, 'updateSpaceById');
      expect(set.body.mergeRules).toEqual(rules);
      expect((await as(reader).get(`/v1/spaces/${s.id}`)).body.mergeRules).toEqual(rules);
      // A duplicate keeps the space's rules, as it keeps its other settings.
      const copy = await as(org.admin).post(`/v1/spaces/${s.id}/duplicate`).expect(201);
      expect(copy.body.mergeRules).toEqual(rules);
      expect((await setSpaceRules(s.id, { type: 'none' }).expect(200)).body.mergeRules).toEqual({ type: 'none' });
      expect((await setSpaceRules(s.id, { type: 'inherit' }).expect(200)).body.mergeRules).toEqual({ type: 'inherit' });
      const [row] = await t.dataSource.query(`SELECT merge_rules FROM spaces WHERE id = $1`, [s.id]);
      expect(row.merge_rules).toBeNull();
    });

    it('the organization PATCH sets and returns its rules (`inherit` is not one of them)', async () => {
      const o = await createOrganization(t);
      const initial = await t.http
        .get(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .expect(200);
      expect(initial.body.mergeRules).toEqual({ type: 'none' });
      const rules = { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'require_up_to_date_change_request' }] };
      const set = await t.http
        .patch(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: rules })
        .expect(200);
      expectContract(set, 'updateOrganizationById');
      expect(set.body.mergeRules).toEqual(rules);
      expectErrorEnvelope(
        await t.http
          .patch(`/v1/orgs/${o.id}`)
          .set(...o.admin.auth)
          .send({ mergeRules: { type: 'inherit' } }),
        400,
        /mergeRules: type: must be one of rules, none/,
      );
      expect((await t.http.get(`/v1/orgs/${o.id}`).set(...o.admin.auth)).body.mergeRules).toEqual(rules);
    });

    it('refuses bad configurations with 400 naming the field, writing nothing', async () => {
      const s = await createSpace(t, org);
      const bad: [object, RegExp][] = [
        [{ type: 'sometimes' }, /mergeRules: type: must be one of inherit, rules, none/],
        [{ type: 'rules' }, /mergeRules: rules: must be an array/],
        [{ type: 'rules', rules: [{ rule: 'allow_bypass' }] }, /mergeRules: rules\[0\].users: must be an array of 1 to 50 user ids/],
        [{ type: 'rules', rules: [{ rule: 'require_at_least_one_review', users: ['x'] }] }, /rules\[0\].users: is not a property of this rule/],
        [{ type: 'rules', rules: [{ rule: 'custom', expression: 'a b' }] }, /rules\[0\].expression: syntax error/],
        [{ type: 'rules', rules: [{ rule: 'require_change_request_description' }] }, /not supported \(change requests have no description\)/],
        [{ type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ['nobody-here'] }] }, /not members of the organization: nobody-here/],
      ];
      for (const [mergeRules, message] of bad) expectErrorEnvelope(await setSpaceRules(s.id, mergeRules), 400, message);
      expectErrorEnvelope(await setSpaceRules(s.id, null as unknown as object), 400, /mergeRules: must not be null/);
      expectErrorEnvelope(await as(reviewer).patch(`/v1/spaces/${s.id}`, { mergeRules: { type: 'none' } }), 403);
      expect((await as(reader).get(`/v1/spaces/${s.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
    });

    it('refuses a merge (409 naming the rule) until the rules pass; the approval must be of the merged revision', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'require_all_reviews_approved' }] }).expect(
        200,
      );
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Gated').expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${cr}/merge`), 409, /require_at_least_one_approved_review: no approval of the current revision/);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(second).post(`${cr}/reviews`, { status: 'changes-requested' }).expect(201);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, new RegExp(`require_all_reviews_approved: changes requested by ${second.user.id}`));
      await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      // New authoring: both approvals were of the old head.
      await insertPage(cr, 'Late').expect(200);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, /require_at_least_one_approved_review/);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect((await as(reviewer).post(`${cr}/merge`).expect(200)).body.result).toBe('merge');
      expect((await as(reader).get(cr)).body.status).toBe('merged');
    });

    it('a custom rule reads the public MergeRulesEvaluationContext: the space, the change request, every review and the merger as the API shows them', async () => {
      const s = await createSpace(t, org);
      const expression = [
        'space.mergeRules.type == "rules"',
        'space.permissions.merge',
        `changeRequest.createdBy.displayName == "${author.user.displayName}"`,
        'changeRequest.urls.location != ""',
        'reviews.length >= 2',
        'actor.urls.location != ""',
      ].join(' && ');
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'custom', expression, message: 'two reviews posted' }] }).expect(200);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Custom').expect(200);
      await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'One thing' } })
        .expect(201);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/merge`), 409, /rule custom: two reviews posted/);
      // A second review of the same reviewer: both are posted reviews (the first one outdated), so the rule passes.
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);

      // The context the rule read, against the public schema.
      const reviewerUser = (await t.app.get(UsersService).findByEmail(reviewer.user.email)) as User;
      const context = await t.app.get(SpaceUnitOfWork).run(s.id, reviewerUser, 'merge', async (write) => {
        const row = await t.app.get(ChangeRequestsService).resolve(s.id, cr.split('/').pop() as string, write.em);
        return t.app.get<MergeRulesContextPresenter>(MERGE_RULES_CONTEXT_PRESENTER)(
          await t.app.get(ReviewsService).mergeRulesContext(reviewerUser, write, row),
        ) as MergeRulesEvaluationContextJson;
      });
      expectPublicSchema(context, 'MergeRulesEvaluationContext');
      expect(context.reviews.map((review) => [review.status, review.outdated])).toEqual([
        ['approved', false],
        ['changes-requested', true],
      ]);
      expect(context.reviews[1].comment).toMatchObject({ object: 'comment' });
      expect(context.actor).toMatchObject({ object: 'user', id: reviewer.user.id });

      expect((await as(reviewer).post(`${cr}/merge`).expect(200)).body.result).toBe('merge');
    });

    it('a space that inherits follows its organization; its own rules win over it', async () => {
      const o = await createOrganization(t);
      const editor = await addMember(t, o, 'edit');
      const s = await createSpace(t, o);
      await t.http
        .patch(`/v1/orgs/${o.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_subject' }] } })
        .expect(200);
      const create = await t.http
        .post(crs(s.id))
        .set(...editor.auth)
        .send({})
        .expect(201);
      const cr = `${crs(s.id)}/${create.body.id as string}`;
      expectErrorEnvelope(await t.http.post(`${cr}/merge`).set(...o.admin.auth), 409, /require_change_request_subject: the change request has no subject/);
      await t.http
        .patch(`/v1/spaces/${s.id}`)
        .set(...o.admin.auth)
        .send({ mergeRules: { type: 'none' } })
        .expect(200);
      await t.http
        .post(`${cr}/merge`)
        .set(...o.admin.auth)
        .expect(200);
    });

    it('allow_bypass lets the users it names merge anyway, and nobody else (admins included)', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, {
        type: 'rules',
        rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'allow_bypass', users: [reviewer.user.id] }],
      }).expect(200);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Bypass').expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${cr}/merge`), 409, /require_at_least_one_approved_review/);
      await as(reviewer).post(`${cr}/merge`).expect(200);
    });

    it('require_author_to_merge and require_up_to_date_change_request', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_author_to_merge' }, { rule: 'require_up_to_date_change_request' }] }).expect(200);
      // The reviewer authors both (the review role may edit and merge).
      const behind = await openChangeRequest(s.id, reviewer);
      await insertPage(behind, 'Behind', reviewer).expect(200);
      const first = await openChangeRequest(s.id, reviewer);
      await insertPage(first, 'First', reviewer).expect(200);
      expectErrorEnvelope(await as(org.admin).post(`${first}/merge`), 409, /require_author_to_merge/);
      await as(reviewer).post(`${first}/merge`).expect(200);
      // main moved on: `behind` must be updated from main first.
      expectErrorEnvelope(await as(reviewer).post(`${behind}/merge`), 409, /require_up_to_date_change_request/);
      await as(reviewer).post(`${behind}/update`).expect(200);
      await as(reviewer).post(`${behind}/merge`).expect(200);
    });
  });

  describe('approvals (Quire extension, PUT …/merge-rules)', () => {
    itChecksAccess(() => t, {
      given: async (o) => createSpace(t, o),
      request: (_o, s) => t.http.put(`/v1/spaces/${s.id}/merge-rules`).send({ requiredApprovals: 1 }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'review', status: 403, title: 'refuses a reviewer (the rules need admin) with 403' },
    });

    it('reads the default (none), refuses bad settings', async () => {
      const s = await createSpace(t, org);
      const res = await as(reader).get(`/v1/spaces/${s.id}/merge-rules`).expect(200);
      expect(res.body).toEqual({ object: 'space-merge-rules', space: s.id, requiredApprovals: 0, urls: { location: expect.stringMatching(/\/merge-rules$/) } });
      expectErrorEnvelope(await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 21 }), 400, /requiredApprovals/);
      expectErrorEnvelope(await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: -1 }), 400, /requiredApprovals/);
      expectErrorEnvelope(
        await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 1, adminsCanOverride: true }),
        400,
        /adminsCanOverride/,
      );
    });

    it('N approvals of the current revision, from distinct reviewers', async () => {
      const s = await createSpace(t, org);
      expect((await as(org.admin).put(`/v1/spaces/${s.id}/merge-rules`, { requiredApprovals: 2 }).expect(200)).body.requiredApprovals).toBe(2);
      const cr = await openChangeRequest(s.id);
      await insertPage(cr, 'Two').expect(200);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expectErrorEnvelope(
        await as(reviewer).post(`${cr}/merge`),
        409,
        /requiredApprovals \(Quire extension\): 2 approval\(s\) of the current revision needed, 1 given/,
      );
      await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      await as(reviewer).post(`${cr}/merge`).expect(200);
    });
  });

  describe('under concurrency', () => {
    it('a request for changes racing a merge: either it lands first (409) or the merge does (the review finds it closed)', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'require_all_reviews_approved' }] }).expect(
        200,
      );
      for (let round = 0; round < 4; round++) {
        const cr = await openChangeRequest(s.id);
        await insertPage(cr, `Race ${round}`).expect(200);
        await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
        const [merge, review] = await Promise.all([as(reviewer).post(`${cr}/merge`), as(second).post(`${cr}/reviews`, { status: 'changes-requested' })]);
        const status = (await as(reader).get(cr)).body.status;
        if (merge.status === 200) {
          expect(status).toBe('merged');
          expect(review.status).toBe(409);
        } else {
          expect(merge.status).toBe(409);
          expect(review.status).toBe(201);
          expect(status).toBe('open');
        }
      }
    });

    it("an organization's rules changing during a merge: the merge waits for the change and checks the new rules", async () => {
      const o = await createOrganization(t);
      const s = await createSpace(t, o);
      const cr = `${crs(s.id)}/${
        (
          await t.http
            .post(crs(s.id))
            .set(...o.admin.auth)
            .send({})
            .expect(201)
        ).body.id as string
      }`;
      await t.http
        .post(`${cr}/content`)
        .set(...o.admin.auth)
        .send({ changes: [{ operation: 'insert_page', title: 'Waits', document: { markdown: 'text' } }] })
        .expect(200);
      // The organization PATCH's UPDATE, held open: the space inherits `none` until it commits.
      const patch = t.dataSource.createQueryRunner();
      await patch.connect();
      try {
        await patch.startTransaction();
        await patch.query(`UPDATE organizations SET merge_rules = $2 WHERE id = $1`, [
          o.id,
          JSON.stringify({ type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] }),
        ]);
        let answered = false;
        const merge = t.http
          .post(`${cr}/merge`)
          .set(...o.admin.auth)
          .send({})
          .then((res) => {
            answered = true;
            return res;
          });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(answered).toBe(false);
        await patch.commitTransaction();
        expectErrorEnvelope(await merge, 409, /require_at_least_one_approved_review/);
      } finally {
        if (patch.isTransactionActive) await patch.rollbackTransaction();
        await patch.release();
      }
      expect((await t.http.get(cr).set(...o.admin.auth)).body.status).toBe('open');
    });

    it('new authoring racing a merge: no merge lands without an approval of the revision it merged', async () => {
      const s = await createSpace(t, org);
      await setSpaceRules(s.id, { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] }).expect(200);
      const outcomes = { merged: 0, refused: 0 };
      for (let round = 0; round < 12; round++) {
        const cr = await openChangeRequest(s.id);
        await insertPage(cr, `Approved ${round}`).expect(200);
        await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
        // The author pushes a change (outdating the approval) while the reviewer merges.
        const [authoring, merge] = await Promise.all([insertPage(cr, `Unreviewed ${round}`), as(reviewer).post(`${cr}/merge`)]);
        const [row] = await t.dataSource.query(`SELECT id, status, revision, revision_merged FROM change_requests WHERE id = $1`, [cr.split('/').pop()]);
        if (merge.status === 200) {
          outcomes.merged++;
          // The merge ran first: the authoring found the change request closed, and the merged head is the approved one.
          expect(authoring.status).toBe(409);
          expect(row.status).toBe('merged');
          const [parents] = await t.dataSource.query(`SELECT parents FROM revisions WHERE id = $1`, [row.revision_merged]);
          expect(parents.parents[1]).toBe(row.revision);
          const approvals = await t.dataSource.query(
            `SELECT 1 FROM change_request_reviews WHERE change_request_id = $1 AND status = 'approved' AND revision_id = $2`,
            [row.id, row.revision],
          );
          expect(approvals).toHaveLength(1);
        } else {
          outcomes.refused++;
          // The authoring ran first: the approval was of the old head, so the merge was refused and nothing merged.
          expectErrorEnvelope(merge, 409, /require_at_least_one_approved_review/);
          expect(authoring.status).toBe(200);
          expect(row.status).toBe('open');
          expect(row.revision_merged).toBeNull();
        }
      }
      expect(outcomes.merged + outcomes.refused).toBe(12);
    });
  });
});

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

/**
 * The merge compares only the layers' own pages when base, head and main are layers over one full
 * revision (change-requests-content covers that path). With a layer bound of one row every revision
 * is written full, so these merges take the other path: the three revisions compared whole in SQL.
 */
describe('change request merges over full revisions (the whole comparison)', () => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp({ REVISION_LAYER_MIN_ROWS: '1' });
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body?: object) => {
    const req = t.http.post(path).set(...org.admin.auth);
    return body === undefined ? req : req.send(body);
  };
  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const newChangeRequest = async (spaceId: string) => {
    const res = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'edits' }).expect(201);
    return `/v1/spaces/${spaceId}/change-requests/${res.body.id as string}`;
  };
  const changes = (url: string, list: object[]) => post(`${url}/content`, { changes: list });
  const layered = async (revisionId: string) => (await t.dataSource.query(`SELECT base_id FROM revisions WHERE id = $1`, [revisionId]))[0].base_id !== null;
  const edit = (at: number, text: string, body = lines(20)) => body.map((line, i) => (i === at ? text : line)).join('\n');

  async function spaceWithPages(): Promise<{ id: string; shared: string; other: string }> {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Shared', document: { markdown: lines(20).join('\n') } },
      { operation: 'insert_page', title: 'Other', document: { markdown: 'other' } },
    ]).expect(200);
    await post(`${cr}/merge`).expect(200);
    const tree = await get(`/v1/spaces/${space.id}/content/pages`).expect(200);
    const id = (title: string) => tree.body.pages.find((page: { title: string }) => page.title === title).id as string;
    return { id: space.id, shared: id('Shared'), other: id('Other') };
  }

  it('keeps non-conflicting edits of two change requests, and main’s own edit, through update and merge', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [
      { operation: 'update_page', page: space.shared, document: { markdown: edit(1, 'line 2 by A') } },
      { operation: 'update_page', page: space.other, title: 'Other by A' },
    ]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(17, 'line 18 by B') } }]).expect(200);

    const merged = await post(`${a}/merge`).expect(200);
    // Main is now a full revision other than B's base: B's update compares the three whole.
    expect(await layered(merged.body.revision)).toBe(false);
    await post(`${b}/update`).expect(200);
    await post(`${b}/merge`).expect(200);

    const shared = await get(`/v1/spaces/${space.id}/content/page/${space.shared}`).expect(200);
    expect(shared.body.markdown.split('\n')).toEqual(edit(17, 'line 18 by B', edit(1, 'line 2 by A').split('\n')).split('\n'));
    const other = await get(`/v1/spaces/${space.id}/content/page/${space.other}`).expect(200);
    expect(other.body.title).toBe('Other by A');
  });

  it('answers 409 naming the page for overlapping edits, and leaves the space revision unchanged', async () => {
    const space = await spaceWithPages();
    const a = await newChangeRequest(space.id);
    const b = await newChangeRequest(space.id);
    await changes(a, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'A wrote this') } }]).expect(200);
    await changes(b, [{ operation: 'update_page', page: space.shared, document: { markdown: edit(2, 'B wrote that') } }]).expect(200);
    await post(`${a}/merge`).expect(200);
    const before = (await get(`/v1/spaces/${space.id}`).expect(200)).body.revision as string;
    const conflict = await post(`${b}/merge`);
    expectErrorEnvelope(conflict, 409);
    expect(conflict.body.error.message).toContain('Shared');
    expect((await get(`/v1/spaces/${space.id}`).expect(200)).body.revision).toBe(before);
  });
});
