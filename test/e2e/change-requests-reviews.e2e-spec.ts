import { itChecksAccess } from '../support/access-checks';
import { Actor, OrgFixture, addMember, createOrganization, createUser } from '../support/builders';
import { expectContract, expectErrorEnvelope, expectPublicSchema } from '../support/contract';
import { createTeam } from '../support/org-admin-builders';
import { createSpace } from '../support/space-builders';
import { TestApp, createTestApp } from '../support/test-app';

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

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

type Change = {
  type: string;
  page?: { id: string; title: string; path?: string; type: string };
  file?: { name: string };
  parent?: object;
  attributes?: Record<string, unknown>;
};

const VARIANTS: Record<string, string> = {
  page_created: 'RevisionSemanticChangePageCreated',
  page_deleted: 'RevisionSemanticChangePageDeleted',
  page_moved: 'RevisionSemanticChangePageMoved',
  file_created: 'RevisionSemanticChangeFileCreated',
  file_edited: 'RevisionSemanticChangeFileEdited',
  file_deleted: 'RevisionSemanticChangeFileDeleted',
};
const EDIT_ATTRIBUTES: Record<string, string> = {
  document: 'RevisionPageDocumentChangeAttributes',
  group: 'RevisionPageGroupChangeAttributes',
  link: 'RevisionPageLinkChangeAttributes',
};

/**
 * The public `RevisionSemanticChanges`, each change checked against its own variant. The whole-body
 * check cannot pass for an edit that touches only attributes the variants share (a title: the
 * document, group and link attribute schemas all accept `{ title }`, and `oneOf` wants exactly one),
 * so an edit's attributes are checked against the variant of its page's type.
 */
function expectChanges(res: { body: { changes: Change[] } }, operationId: string): void {
  const body = res.body;
  const unambiguous = body.changes.every((change) => change.type !== 'page_edited');
  if (unambiguous) expectContract(res as never, operationId);
  for (const change of body.changes) {
    if (change.type === 'page_edited') {
      expect(Object.keys(change).sort()).toEqual(['attributes', 'page', 'type']);
      expectPublicSchema(change.page, 'ChangedRevisionPage');
      expectPublicSchema(change.attributes, EDIT_ATTRIBUTES[change.page?.type ?? 'document']);
    } else expectPublicSchema(change, VARIANTS[change.type]);
  }
}

/**
 * Semantic changes of change requests and revisions, over layers (the default bound: every revision
 * here is a layer over the space's first full revision) and over full revisions (a bound of one row:
 * every revision is written full, so the two are compared whole).
 */
describe.each([
  ['layers', {}],
  ['full revisions', { REVISION_LAYER_MIN_ROWS: '1' }],
])('semantic changes (%s)', (_name, env) => {
  let t: TestApp;
  let org: OrgFixture;

  beforeAll(async () => {
    t = await createTestApp(env);
    org = await createOrganization(t);
  });
  afterAll(() => t.close());

  const get = (path: string) => t.http.get(path).set(...org.admin.auth);
  const post = (path: string, body: object = {}) =>
    t.http
      .post(path)
      .set(...org.admin.auth)
      .send(body);
  const newChangeRequest = async (spaceId: string) =>
    `/v1/spaces/${spaceId}/change-requests/${(await post(`/v1/spaces/${spaceId}/change-requests`).expect(201)).body.id as string}`;
  const changes = (cr: string, list: object[]) => post(`${cr}/content`, { changes: list }).expect(200);

  /** A space whose main has Guide (with Install below it), Reference, Old (with Older below it) (link pages have no authoring operation: the unit test covers their attributes). */
  async function spaceWithPages() {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Guide', document: { markdown: 'guide' } },
      { operation: 'insert_page', title: 'Reference', document: { markdown: 'reference' } },
      { operation: 'insert_page', title: 'Old', document: { markdown: 'old' } },
    ]);
    await post(`${cr}/merge`).expect(200);
    const top = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[];
    const id = (title: string) => top.find((page) => page.title === title)?.id as string;
    const cr2 = await newChangeRequest(space.id);
    await changes(cr2, [
      { operation: 'insert_page', title: 'Install', into: id('Guide'), document: { markdown: 'install' } },
      { operation: 'insert_page', title: 'Older', into: id('Old'), document: { markdown: 'older' } },
    ]);
    await post(`${cr2}/merge`).expect(200);
    const all = (await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as {
      id: string;
      title: string;
      pages: { id: string; title: string }[];
    }[];
    const below = (parent: string) => all.find((page) => page.title === parent)?.pages[0].id as string;
    return { id: space.id, guide: id('Guide'), reference: id('Reference'), old: id('Old'), install: below('Guide'), older: below('Old') };
  }

  it('requires authentication, and answers 404 outside the organization or for an unknown change request or revision', async () => {
    const space = await createSpace(t, org);
    const cr = await newChangeRequest(space.id);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`), 401);
    expectErrorEnvelope(await t.http.get(`/v1/spaces/${space.id}/revisions/${space.revisionId}/changes`), 401);
    const outsider = await createUser(t);
    expectErrorEnvelope(await t.http.get(`${cr}/changes`).set(...outsider.auth), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/change-requests/999999/changes`), 404);
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/nope/changes`), 404);
    const empty = await get(`${cr}/changes`).expect(200);
    expectContract(empty, 'getChangeRequestChanges');
    expect(empty.body).toEqual({ changes: [] });
  });

  it('reports pages created, edited, moved with their subtree, deleted with theirs, and files created', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.reference, title: 'API reference', emoji: '1f4d6', document: { markdown: 'new body' } },
      { operation: 'update_page', page: space.guide, into: space.reference },
      { operation: 'delete_page', page: space.old },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const res = await get(`${cr}/changes?limit=100`).expect(200);
    expectChanges(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    const of = (type: string, pageId?: string) => list.filter((c) => c.type === type && (pageId === undefined || c.page?.id === pageId));

    expect(of('page_created')).toEqual([{ type: 'page_created', page: { id: expect.any(String), type: 'document', title: 'Fresh', path: 'fresh' } }]);
    // The moved page only: Install, below it, keeps its parent.
    expect(of('page_moved')).toEqual([
      {
        type: 'page_moved',
        page: { id: space.guide, type: 'document', title: 'Guide', path: 'reference/guide' },
        parent: { after: { id: space.reference, type: 'document', title: 'API reference', path: 'reference' } },
      },
    ]);
    expect(of('page_moved', space.install)).toEqual([]);
    expect(of('page_edited', space.install)).toEqual([]);
    const edited = of('page_edited', space.reference)[0];
    expect(edited.attributes).toMatchObject({ title: { before: 'Reference', after: 'API reference' }, emoji: { after: '1f4d6' }, document: {} });
    expect(Object.keys(edited.attributes ?? {}).sort()).toEqual(['document', 'emoji', 'title']);
    // A deleted page takes its sub-pages with it: both are reported.
    expect(
      of('page_deleted')
        .map((c) => c.page?.id)
        .sort(),
    ).toEqual([space.old, space.older].sort());
    const files = of('file_created');
    expect(files).toHaveLength(1);
    expect(files[0].file).toMatchObject({ name: 'logo.png', contentType: 'image/png', downloadURL: expect.stringContaining('/download') });

    // The default limit is 10; `more` counts what was left out.
    const limited = await get(`${cr}/changes?limit=2`).expect(200);
    expect(limited.body.changes).toHaveLength(2);
    expect(limited.body.more).toBe(list.length - 2);
    expectErrorEnvelope(await get(`${cr}/changes?limit=0`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=1001`), 400, /limit/);
    expectErrorEnvelope(await get(`${cr}/changes?limit=ten`), 400, /limit/);
  });

  it('a moved subtree under a new parent, and a page moved to the top level', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'update_page', page: space.old, into: space.guide },
      { operation: 'update_page', page: space.install, into: null },
    ]);
    const res = await get(`${cr}/changes`).expect(200);
    expectContract(res, 'getChangeRequestChanges');
    const list = res.body.changes as Change[];
    expect(list.map((c) => [c.type, c.page?.id]).sort()).toEqual(
      [
        ['page_moved', space.install],
        ['page_moved', space.old],
      ].sort(),
    );
    const install = list.find((c) => c.page?.id === space.install);
    expect(install?.parent).toEqual({ before: { id: space.guide, type: 'document', title: 'Guide', path: 'guide' } });
    const old = list.find((c) => c.page?.id === space.old);
    expect(old?.page?.path).toBe('guide/old');
  });

  it('a revision against its parent; a merge revision names its change request', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [{ operation: 'update_page', page: space.guide, title: 'Handbook' }]);
    const head = (await get(cr).expect(200)).body;
    const own = await get(`/v1/spaces/${space.id}/revisions/${head.revision as string}/changes?metadata=false`).expect(200);
    expectChanges(own, 'getRevisionSemanticChanges');
    expect(own.body.changes).toEqual([
      {
        type: 'page_edited',
        page: { id: space.guide, type: 'document', title: 'Handbook', path: 'guide' },
        attributes: { title: { before: 'Guide', after: 'Handbook' } },
      },
    ]);
    expect(own.body.mergedFrom).toBeUndefined();
    const merged = await post(`${cr}/merge`).expect(200);
    const res = await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes`).expect(200);
    expectChanges(res, 'getRevisionSemanticChanges');
    expectPublicSchema(res.body.mergedFrom, 'ChangeRequest');
    expect(res.body.mergedFrom).toMatchObject({ object: 'change-request', id: head.id, status: 'merged' });
    expect(res.body.changes.map((c: Change) => [c.type, c.page?.title])).toEqual([['page_edited', 'Handbook']]);
    // The space's first revision has no parent: everything in it is new (an empty space: nothing).
    const fresh = await createSpace(t, org);
    expect((await get(`/v1/spaces/${fresh.id}/revisions/${fresh.revisionId}/changes`).expect(200)).body).toEqual({ changes: [] });
    expectErrorEnvelope(await get(`/v1/spaces/${space.id}/revisions/${merged.body.revision as string}/changes?limit=-1`), 400, /limit/);
  });
  it('reads only the keys its deltas changed, across an update from main: the same changes as comparing rows', async () => {
    const space = await spaceWithPages();
    const cr = await newChangeRequest(space.id);
    await changes(cr, [
      { operation: 'insert_page', title: 'Fresh', document: { markdown: 'fresh' } },
      { operation: 'update_page', page: space.guide, title: 'Handbook' },
      { operation: 'delete_page', page: space.old },
    ]);
    // Main moves on: a page only main's layer has, and an edit.
    const other = await newChangeRequest(space.id);
    await changes(other, [
      { operation: 'insert_page', title: 'Mainline', document: { markdown: 'mainline' } },
      { operation: 'update_page', page: space.reference, title: 'API' },
    ]);
    await post(`${other}/merge`).expect(200);
    const mainline = ((await get(`/v1/spaces/${space.id}/content/pages`).expect(200)).body.pages as { id: string; title: string }[]).find(
      (page) => page.title === 'Mainline',
    )?.id as string;
    await post(`${cr}/update`).expect(200);
    // After the update: delete main's new page, take the retitle back (its key is in a delta, its row is main's again), add a file.
    await changes(cr, [
      { operation: 'delete_page', page: mainline },
      { operation: 'revert_page', page: space.guide },
      { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
    ]);
    const read = async () => {
      const res = await get(`${cr}/changes?limit=100`).expect(200);
      return (res.body.changes as Change[]).map((c) => [c.type, c.page?.title ?? c.file?.name]);
    };
    const byDeltas = await read();
    expect([...byDeltas].sort()).toEqual(
      [
        ['file_created', 'logo.png'],
        ['page_created', 'Fresh'],
        ['page_deleted', 'Mainline'],
        ['page_deleted', 'Old'],
        ['page_deleted', 'Older'],
      ].sort(),
    );
    const db = t.dataSource;
    // The reader takes the deltas' keys and nothing else: emptied, it finds no change.
    const saved: { id: string; delta_page_ids: string[]; delta_file_ids: string[] }[] = await db.query(
      `SELECT id, delta_page_ids, delta_file_ids FROM revisions WHERE space_id = $1 AND delta_base_id IS NOT NULL`,
      [space.id],
    );
    await db.query(`UPDATE revisions SET delta_page_ids = '{}', delta_file_ids = '{}' WHERE space_id = $1 AND delta_base_id IS NOT NULL`, [space.id]);
    expect(await read()).toEqual([]);
    // Without them (revisions written before the keys were kept) it compares rows, and finds the same.
    await db.query(`UPDATE revisions SET delta_page_ids = NULL WHERE space_id = $1`, [space.id]);
    expect(await read()).toEqual(byDeltas);
    for (const row of saved)
      await db.query(`UPDATE revisions SET delta_page_ids = $2, delta_file_ids = $3 WHERE id = $1`, [row.id, row.delta_page_ids, row.delta_file_ids]);
    expect(await read()).toEqual(byDeltas);
  });
});
