import { itChecksAccess } from '../support/access-checks';
import { Actor, addMember, createOrganization, OrgFixture } from '../support/builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { createTeam } from '../support/org-admin-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

describe('change request reviews, requested reviewers and contributors', () => {
  let t: TestApp;
  let org: OrgFixture;
  let space: { id: string; revisionId: string };
  let author: Actor;
  let reviewer: Actor;
  let second: Actor;
  let reader: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    space = await createSpace(t, org);
    author = await addMember(t, org, 'edit');
    reviewer = await addMember(t, org, 'review');
    second = await addMember(t, org, 'review');
    reader = await addMember(t, org, 'read');
  });
  afterAll(() => t.close());

  const crs = (spaceId = space.id) => `/v1/spaces/${spaceId}/change-requests`;
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
    del: (path: string) => t.http.delete(path).set(...actor.auth),
  });
  async function openChangeRequest(by: Actor = author, spaceId = space.id): Promise<string> {
    const res = await as(by).post(crs(spaceId), { subject: 'to review' }).expect(201);
    return `${crs(spaceId)}/${res.body.id as string}`;
  }
  const insertPage = (cr: string, title: string, by: Actor = author) =>
    as(by)
      .post(`${cr}/content`, { changes: [{ operation: 'insert_page', title, document: { markdown: `# ${title}\n\ntext` } }] })
      .expect(200);

  describe('reviews', () => {
    itChecksAccess(() => t, {
      given: async (o) => {
        const s = await createSpace(t, o);
        const res = await as(o.admin).post(crs(s.id)).expect(201);
        return `${crs(s.id)}/${res.body.id as string}`;
      },
      request: (_o, cr) => t.http.post(`${cr}/reviews`).send({ status: 'approved' }),
      anonymous: 401,
      outsider: 404,
      member: {
        role: 'edit',
        status: 403,
        title: 'refuses an editor (review needs the review role) with 403, writing nothing',
        after: async (_o, cr) => {
          const rows = await t.dataSource.query(`SELECT 1 FROM change_request_reviews WHERE change_request_id = $1`, [cr.split('/').pop()]);
          expect(rows).toHaveLength(0);
        },
      },
    });

    it('role matrix: read may list, edit may request, review may submit, and the author may not approve', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Matrix');
      expectContract(await as(reader).get(`${cr}/reviews`).expect(200), 'getReviewsByChangeRequestId');
      expectErrorEnvelope(await as(reader).post(`${cr}/reviews`, { status: 'approved' }), 403);
      expectErrorEnvelope(await as(reader).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id] }), 403);
      expectErrorEnvelope(await as(reader).del(`${cr}/requested-reviewers/${reviewer.user.id}`), 403);
      expectErrorEnvelope(await as(author).post(`${cr}/reviews`, { status: 'approved' }), 403);
      // An admin who created the change request cannot approve it either.
      const own = await openChangeRequest(org.admin);
      expectErrorEnvelope(await as(org.admin).post(`${own}/reviews`, { status: 'approved' }), 403, /cannot approve/);
      const asked = await as(org.admin).post(`${own}/reviews`, { status: 'changes-requested' }).expect(201);
      expect(asked.body.status).toBe('changes-requested');
      const res = await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expectContract(res, 'submitChangeRequestReview');
    });

    it('submits a review pinned to the head, reads it, lists it; refuses bad input', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Pinned');
      const head = (await as(reader).get(cr).expect(200)).body.revision;
      const res = await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'please fix the title' } })
        .expect(201);
      expectContract(res, 'submitChangeRequestReview');
      expect(res.headers.location).toBe(res.body.urls.location);
      expect(res.body).toMatchObject({
        object: 'change-request-review',
        status: 'changes-requested',
        revision: head,
        outdated: false,
        reviewer: { id: reviewer.user.id },
      });
      expect(res.body.requestedBy).toBeUndefined();
      const one = await as(reviewer)
        .get(`${cr}/reviews/${res.body.id as string}`)
        .expect(200);
      expectContract(one, 'getChangeRequestReviewById');
      expect(one.body).toEqual(res.body);
      expectContract(
        await as(reader)
          .get(`${cr}/reviews/${res.body.id as string}`)
          .expect(200),
        'getChangeRequestReviewById',
      );
      const byNumber = cr.replace(/[^/]+$/, String((await as(reader).get(cr)).body.number));
      expect((await as(reader).get(`${byNumber}/reviews`).expect(200)).body.items.map((r: { id: string }) => r.id)).toEqual([res.body.id]);
      expectErrorEnvelope(await as(reader).get(`${cr}/reviews/nope`), 404);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, {}), 400, /status/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'rejected' }), 400, /status/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved', comment: { document: { nodes: [] } } }), 400, /comment/);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved', comment: 'x' }), 400, /comment/);
      expectErrorEnvelope(await as(reviewer).post(`${crs()}/999999/reviews`, { status: 'approved' }), 404);
      expectErrorEnvelope(await as(reader).get(`${cr}/reviews?outdated=maybe`), 400, /outdated/);
    });

    it("a review's comment is a comment of the change request, shown as the public Comment until it is deleted", async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Commented');
      const crId = cr.split('/').pop() as string;
      const res = await as(reviewer)
        .post(`${cr}/reviews`, { status: 'changes-requested', comment: { markdown: 'please **fix** the title' } })
        .expect(201);
      expectContract(res, 'submitChangeRequestReview');
      const comment = res.body.comment;
      expect(comment).toMatchObject({
        object: 'comment',
        postedBy: { id: reviewer.user.id },
        body: { markdown: 'please **fix** the title' },
        status: 'open',
        target: { changeRequest: crId, review: res.body.id, revision: res.body.revision, space: space.id },
        permissions: { view: true, edit: true, delete: true },
      });
      // Among the change request's comments, counted as open.
      const listed = await as(reader).get(`${cr}/comments`).expect(200);
      expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([comment.id]);
      expect((await as(reader).get(cr)).body.comments).toBe(1);
      // As the reader sees it: their permissions, the document format when asked.
      const asDocument = await as(reader)
        .get(`${cr}/reviews/${res.body.id as string}?format=document`)
        .expect(200);
      expectContract(asDocument, 'getChangeRequestReviewById');
      expect(asDocument.body.comment.permissions).toMatchObject({ edit: false, delete: false });
      expect(asDocument.body.comment.body.document).toBeDefined();
      const list = await as(reader).get(`${cr}/reviews`).expect(200);
      expectContract(list, 'getReviewsByChangeRequestId');
      expect(list.body.items[0].comment.id).toBe(comment.id);
      // A review without comment has none.
      const plain = await as(second).post(`${cr}/reviews`, { status: 'approved', comment: {} }).expect(201);
      expect(plain.body.comment).toBeUndefined();
      // Deleting the comment takes it off the review; the review (and its status) stays.
      await as(reviewer)
        .del(`${cr}/comments/${comment.id as string}`)
        .expect(205);
      const after = await as(reader)
        .get(`${cr}/reviews/${res.body.id as string}`)
        .expect(200);
      expectContract(after, 'getChangeRequestReviewById');
      expect(after.body.comment).toBeUndefined();
      expect(after.body.status).toBe('changes-requested');
      expect((await as(reader).get(cr)).body.comments).toBe(0);
    });

    it('marks reviews outdated after new authoring and after an update from main, and filters on it', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'First');
      const before = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      await insertPage(cr, 'Second');
      const after = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect((await as(reader).get(`${cr}/reviews/${before.id as string}`)).body.outdated).toBe(true);
      const outdated = await as(reader).get(`${cr}/reviews?outdated=true`).expect(200);
      expectContract(outdated, 'getReviewsByChangeRequestId');
      expect(outdated.body.items.map((r: { id: string }) => r.id)).toEqual([before.id]);
      expect((await as(reader).get(`${cr}/reviews?outdated=false`)).body.items.map((r: { id: string }) => r.id)).toEqual([after.id]);

      // Main moves on: updating from main gives the change request a new head, so the last review is outdated too.
      const other = await openChangeRequest();
      await insertPage(other, 'On main');
      await as(org.admin).post(`${other}/merge`).expect(200);
      await as(author).post(`${cr}/update`).expect(200);
      expect((await as(reader).get(`${cr}/reviews/${after.id as string}`)).body.outdated).toBe(true);
      expect((await as(reader).get(`${cr}/reviews?outdated=false`)).body.items).toEqual([]);
    });

    it('a newer review of the same reviewer supersedes the older one; lists paginate', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Twice');
      const first = (await as(reviewer).post(`${cr}/reviews`, { status: 'changes-requested' }).expect(201)).body;
      const last = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect((await as(reader).get(`${cr}/reviews/${first.id as string}`)).body.outdated).toBe(true);
      expect(last.outdated).toBe(false);
      const page1 = await as(reader).get(`${cr}/reviews?limit=1`).expect(200);
      expect(page1.body.items.map((r: { id: string }) => r.id)).toEqual([last.id]);
      expect(page1.body.count).toBe(2);
      const page2 = await as(reader)
        .get(`${cr}/reviews?limit=1&page=${encodeURIComponent(page1.body.next.page as string)}`)
        .expect(200);
      expect(page2.body.items.map((r: { id: string }) => r.id)).toEqual([first.id]);
      expect(page2.body.next).toBeUndefined();
    });

    it('refuses a review of a merged change request (409)', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Merged');
      await as(org.admin).post(`${cr}/merge`).expect(200);
      expectErrorEnvelope(await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }), 409);
    });
  });

  describe('requested reviewers', () => {
    itChecksAccess(() => t, {
      given: async (o) => {
        const s = await createSpace(t, o);
        const res = await as(o.admin).post(crs(s.id)).expect(201);
        return `${crs(s.id)}/${res.body.id as string}`;
      },
      request: (o, cr) => t.http.post(`${cr}/requested-reviewers`).send({ users: [o.admin.user.id] }),
      anonymous: 401,
      outsider: 404,
      member: { role: 'comment', status: 403, title: 'refuses a commenter (requests need edit) with 403' },
    });

    it('requests, lists, re-requests, and a reviewer who reviews leaves the list', async () => {
      const cr = await openChangeRequest();
      await insertPage(cr, 'Asked');
      const res = await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id, second.user.id, reviewer.user.id], subject: 'Please review' })
        .expect(200);
      expectContract(res, 'requestReviewersForChangeRequest');
      expect(res.body.users).toHaveLength(2);
      expect(res.body.users[0]).toMatchObject({ object: 'change-request-requested-reviewer', kind: 'user', requestedBy: { id: author.user.id } });
      expect((await as(reader).get(cr)).body.subject).toBe('Please review');
      const list = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expectContract(list, 'getRequestedReviewersByChangeRequestId');
      expect(list.body.items.map((r: { user: { id: string } }) => r.user.id).sort()).toEqual([reviewer.user.id, second.user.id].sort());

      const review = await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect(review.body.requestedBy).toMatchObject({ id: author.user.id });
      const left = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expect(left.body.items.map((r: { user: { id: string } }) => r.user.id)).toEqual([second.user.id]);

      // Asked again: the earlier review is superseded by the new request.
      await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id] })
        .expect(200);
      expect((await as(reader).get(`${cr}/reviews/${review.body.id as string}`)).body.outdated).toBe(true);

      const removed = await as(author).del(`${cr}/requested-reviewers/${second.user.id}`);
      expect(removed.status).toBe(205);
      const again = await as(author).del(`${cr}/requested-reviewers/${second.user.id}`);
      expect(again.status).toBe(204);
    });

    it('refuses an empty list, the author, users who cannot view the space, a description; writes nothing', async () => {
      const cr = await openChangeRequest();
      const outsider = (await createOrganization(t)).admin;
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [] }), 400, /users/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, {}), 400, /users/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [] }), 400, /users: at least one user \(or team\)/);
      expectErrorEnvelope(
        await as(author).post(`${cr}/requested-reviewers`, { users: [], teams: ['no-team'] }),
        400,
        /team no-team \(not a team of the organization\)/,
      );
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [author.user.id] }), 400, /author/);
      expectErrorEnvelope(
        await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id, outsider.user.id] }),
        400,
        new RegExp(outsider.user.id),
      );
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: ['nobody'] }), 400, /nobody/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], subject: 'x'.repeat(101) }), 400, /subject/);
      expectErrorEnvelope(await as(author).post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], description: { nodes: [] } }), 400, /description/);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items).toEqual([]);
    });

    it('teams (Quire extension `teams`): listed as kind team until any member reviews; removable by the team id', async () => {
      const team = await createTeam(t, org, { members: [second] });
      const other = await createTeam(t, org, { members: [reader] });
      const cr = await openChangeRequest();
      await insertPage(cr, 'Team review');
      const res = await as(author)
        .post(`${cr}/requested-reviewers`, { users: [reviewer.user.id], teams: [team.id, other.id] })
        .expect(200);
      expectContract(res, 'requestReviewersForChangeRequest');
      expect(res.body.users.map((r: { kind: string }) => r.kind).sort()).toEqual(['team', 'team', 'user']);
      const list = await as(reader).get(`${cr}/requested-reviewers`).expect(200);
      expectContract(list, 'getRequestedReviewersByChangeRequestId');
      const requested = list.body.items.find((r: { kind: string; team?: { id: string } }) => r.kind === 'team' && r.team?.id === team.id);
      expect(requested).toMatchObject({
        object: 'change-request-requested-reviewer',
        kind: 'team',
        team: { object: 'team', id: team.id, title: team.title, members: 1 },
        requestedBy: { id: author.user.id },
      });
      // A member of the team reviews: the team's request is answered (the review names who asked), the user's and the other team's stay.
      const review = await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201);
      expect(review.body.requestedBy).toMatchObject({ id: author.user.id });
      const after = (await as(reader).get(`${cr}/requested-reviewers`)).body.items.map(
        (r: { kind: string; user?: { id: string }; team?: { id: string } }) => r.user?.id ?? r.team?.id,
      );
      expect(after.sort()).toEqual([reviewer.user.id, other.id].sort());
      // DELETE …/requested-reviewers/{id} takes a team id too.
      await as(author).del(`${cr}/requested-reviewers/${other.id}`).expect(205);
      await as(author).del(`${cr}/requested-reviewers/${other.id}`).expect(204);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items.map((r: { kind: string }) => r.kind)).toEqual(['user']);
    });
    it("a team requested after a member's review outdates it, as a request of the member in person does", async () => {
      const team = await createTeam(t, org, { members: [second] });
      const cr = await openChangeRequest();
      await insertPage(cr, 'Team again');
      const earlier = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      const bystander = (await as(reviewer).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect(earlier.outdated).toBe(false);
      await as(author)
        .post(`${cr}/requested-reviewers`, { users: [], teams: [team.id] })
        .expect(200);
      const read = async (id: string) => (await as(reader).get(`${cr}/reviews/${id}`).expect(200)).body.outdated as boolean;
      expect(await read(earlier.id as string)).toBe(true);
      // Only the team's members: another reviewer's review stands.
      expect(await read(bystander.id as string)).toBe(false);
      const current = await as(reader).get(`${cr}/reviews?outdated=false`).expect(200);
      expect(current.body.items.map((r: { id: string }) => r.id)).toEqual([bystander.id]);
      // The member answers the team: the new review is current, the earlier one superseded by it.
      const answer = (await as(second).post(`${cr}/reviews`, { status: 'approved' }).expect(201)).body;
      expect(answer.outdated).toBe(false);
      expect(await read(earlier.id as string)).toBe(true);
      expect((await as(reader).get(`${cr}/requested-reviewers`)).body.items).toEqual([]);
    });
  });

  describe('contributors', () => {
    it('lists the creator and every author with their number of edits, latest first', async () => {
      expectErrorEnvelope(await t.http.get(`${crs()}/1/contributors`), 401);
      const cr = await openChangeRequest();
      await insertPage(cr, 'One');
      await insertPage(cr, 'Two', reviewer);
      await insertPage(cr, 'Three', reviewer);
      const res = await as(reader).get(`${cr}/contributors`).expect(200);
      expectContract(res, 'getContributorsByChangeRequestId');
      expect(res.body.items.map((c: { user: { id: string }; count: number }) => [c.user.id, c.count])).toEqual([
        [reviewer.user.id, 2],
        [author.user.id, 2],
      ]);
      expect(res.body.items[0].actionType).toBe('edit');
      expectErrorEnvelope(await as((await createOrganization(t)).admin).get(`${cr}/contributors`), 404);
    });
  });
});
