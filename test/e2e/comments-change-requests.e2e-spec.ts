import { ChangeRequest } from '../../src/modules/change-requests/change-request.entity';
import { addMember, Actor, createOrganization, OrgFixture } from '../support/builders';
import { Clock } from '../../src/modules/spaces/clock';
import { SpaceRetentionService } from '../../src/modules/spaces/space-retention.service';
import { createChangeRequest, writePages } from '../support/comment-builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000, walkList } from '../support/org-admin-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';

/** The path of an API URL (`urls.location`), for supertest. */
const at = (url: string) => url.replace(/^http:\/\/quire\.test/, '');

describe('change request comments (section 4.6)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let reader: Actor;
  let commenter: Actor;
  let other: Actor;
  let reviewer: Actor;
  let space: { id: string };
  let main: string;
  let cr: ChangeRequest;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    reader = await addMember(t, org, 'read');
    commenter = await addMember(t, org, 'comment');
    other = await addMember(t, org, 'comment');
    reviewer = await addMember(t, org, 'review');
    space = await createSpace(t, org);
    main = await writePages(t, org, space.id, [{ pageId: 'page-main', title: 'Main', slug: 'main', markdown: '# Main\n\n## Usage\n' }]);
    // The change request's head adds a page that main does not have.
    cr = await createChangeRequest(t, org, space.id, [
      { pageId: 'page-main', title: 'Main', slug: 'main', markdown: '# Main\n\n## Usage\n' },
      { pageId: 'page-new', title: 'New page', slug: 'new', markdown: '# New\n\n## Details\n\nProposed.' },
    ]);
  });
  afterAll(() => t.close());

  const base = (ref: string | number = cr.id) => `/v1/spaces/${space.id}/change-requests/${ref}`;
  const send = (method: 'post' | 'put', actor: Actor, path: string, body: object) =>
    t.http[method](at(path))
      .set(...actor.auth)
      .send(body);
  const get = (actor: Actor, path: string) => t.http.get(at(path)).set(...actor.auth);
  const del = (actor: Actor, path: string) => t.http.delete(at(path)).set(...actor.auth);
  const counters = async () => {
    const row = await t.dataSource.getRepository(ChangeRequest).findOneByOrFail({ id: cr.id });
    const spaceJson = (await get(org.admin, `/v1/spaces/${space.id}`).expect(200)).body;
    return { changeRequest: row.openComments, space: spaceJson.comments as number };
  };
  const comment = async (actor: Actor, markdown: string, extra: object = {}) =>
    (await send('post', actor, `${base()}/comments`, { body: { markdown }, ...extra }).expect(200)).body as { id: string; urls: { location: string } };

  describe('access', () => {
    it('answers 403 to a read member posting, replying or reacting', async () => {
      const before = await counters();
      expectErrorEnvelope(await send('post', reader, `${base()}/comments`, { body: { markdown: 'no' } }), 403);
      const { urls } = await comment(commenter, 'Read me');
      expectErrorEnvelope(await send('post', reader, `${urls.location}/replies`, { body: { markdown: 'no' } }), 403);
      expectErrorEnvelope(await send('put', reader, urls.location, { addedReactions: ['👍'] }), 403);
      expect((await counters()).changeRequest).toBe(before.changeRequest + 1);
    });

    it('answers 404 for a change request the space does not have', async () => {
      const elsewhere = await createSpace(t, org);
      const foreign = await createChangeRequest(t, org, elsewhere.id);
      for (const ref of ['nope', '999', foreign.id]) {
        expectErrorEnvelope(await get(reader, `${base(ref)}/comments`), 404, /Change request/);
        expectErrorEnvelope(await send('post', commenter, `${base(ref)}/comments`, { body: { markdown: 'x' } }), 404, /Change request/);
      }
    });
  });

  describe('comments', () => {
    it('posts on the head revision, by id or by number; counts on the change request, not the space', async () => {
      const before = await counters();
      const res = await send('post', commenter, `${base(cr.number)}/comments`, { page: 'page-new', node: 'details', body: { markdown: 'Why this?' } });
      expect(res.status).toBe(200);
      expectContract(res, 'postCommentInChangeRequest');
      expect(res.body).toMatchObject({
        object: 'comment',
        status: 'open',
        target: {
          space: space.id,
          revision: cr.revision,
          changeRequest: cr.id,
          page: { id: 'page-new', title: 'New page', path: 'new', outdated: false },
          node: { id: 'details', preview: 'Details' },
        },
        urls: { location: `http://quire.test/v1/spaces/${space.id}/change-requests/${cr.id}/comments/${res.body.id}` },
        permissions: { view: true, edit: true, reply: true, delete: true },
      });
      expect(await counters()).toEqual({ changeRequest: before.changeRequest + 1, space: before.space });
      const byNumber = await get(reader, `${base(cr.number)}/comments/${res.body.id}`).expect(200);
      expectContract(byNumber, 'getCommentInChangeRequest');
      expect(byNumber.body.id).toBe(res.body.id);
      // A change request's comment is not a space comment, and the reverse.
      expectErrorEnvelope(await get(reader, `/v1/spaces/${space.id}/comments/${res.body.id}`), 404);
      const onSpace = (await send('post', commenter, `/v1/spaces/${space.id}/comments`, { body: { markdown: 'main' } }).expect(200)).body;
      expectErrorEnvelope(await get(reader, `${base()}/comments/${onSpace.id}`), 404);
      expect(onSpace.target).toEqual({ space: space.id, revision: main });
    });

    it('refuses pages and nodes missing from the head (and a page only the head has, on the space)', async () => {
      expectErrorEnvelope(await send('post', commenter, `${base()}/comments`, { page: 'nope', body: { markdown: 'x' } }), 400, /page/);
      expectErrorEnvelope(await send('post', commenter, `${base()}/comments`, { page: 'page-new', node: 'usage', body: { markdown: 'x' } }), 400, /node/);
      expectErrorEnvelope(await send('post', commenter, `/v1/spaces/${space.id}/comments`, { page: 'page-new', body: { markdown: 'x' } }), 400, /page/);
      expectErrorEnvelope(await send('post', commenter, `${base()}/comments`, { body: { markdown: '' } }), 400, /markdown/);
    });

    it('resolves and reopens, with the change request counter following; format=document', async () => {
      const { urls } = await comment(commenter, 'Resolve me');
      const before = await counters();
      expectErrorEnvelope(await send('put', other, urls.location, { resolved: true }), 403);
      const resolved = await send('put', reviewer, urls.location, { resolved: true, addedReactions: ['✅', '✅'] }).expect(200);
      expectContract(resolved, 'updateCommentInChangeRequest');
      expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: reviewer.user.id }, reactions: [{ emoji: '✅', count: 1 }] });
      expect(await counters()).toEqual({ changeRequest: before.changeRequest - 1, space: before.space });
      const reopened = await send('put', commenter, urls.location, { resolved: false }).expect(200);
      expect(reopened.body.status).toBe('open');
      expect(await counters()).toEqual(before);
      const document = await get(reader, `${urls.location}?format=document`).expect(200);
      expectContract(document, 'getCommentInChangeRequest');
      expect(document.body.body.document.object).toBe('document');
    });

    it('deletes with its replies (205) and counts it out; 204 when it did not exist', async () => {
      const { urls } = await comment(commenter, 'Delete me');
      const reply = (await send('post', other, `${urls.location}/replies`, { body: { markdown: 'me too' } }).expect(200)).body;
      const before = await counters();
      expectErrorEnvelope(await del(other, urls.location), 403);
      await del(org.admin, urls.location).expect(205);
      expect(await counters()).toEqual({ changeRequest: before.changeRequest - 1, space: before.space });
      expectErrorEnvelope(await get(reader, reply.urls.location), 404);
      await del(org.admin, urls.location).expect(204);
    });
  });

  describe('replies', () => {
    it('posts, lists, gets, updates and deletes replies (the public description’s reply routes)', async () => {
      const { urls } = await comment(commenter, 'Thread');
      const posted = await send('post', other, `${urls.location}/replies?format=document`, { body: { markdown: 'A *reply*' } });
      expect(posted.status).toBe(200);
      expectContract(posted, 'postCommentReplyInChangeRequest');
      expect(posted.body.body.document.object).toBe('document');
      expect(posted.body.urls.location).toBe(`${urls.location}/replies/${posted.body.id}`);
      for (let i = 0; i < 3; i++) await send('post', commenter, `${urls.location}/replies`, { body: { markdown: `reply ${i}` } }).expect(200);

      const list = await get(reader, `${urls.location}/replies`).expect(200);
      expectContract(list, 'listCommentRepliesInChangeRequest');
      expect(list.body.count).toBe(4);
      expect(list.body.items[0].body).toEqual({ markdown: 'A *reply*' });
      const walked = await walkList(t, at(`${urls.location}/replies`), reader, { limit: 3 }, (res) => expectContract(res, 'listCommentRepliesInChangeRequest'));
      expect(walked).toEqual({ ids: list.body.items.map((reply: { id: string }) => reply.id), pages: 2, count: 4 });
      await expectLimitUpTo1000(t, at(`${urls.location}/replies`), reader);

      const parent = await get(reader, urls.location).expect(200);
      expect(parent.body).toMatchObject({
        replies: 4,
        repliers: [
          { user: { id: other.user.id }, count: 1 },
          { user: { id: commenter.user.id }, count: 3 },
        ],
      });

      const got = await get(reader, posted.body.urls.location).expect(200);
      expectContract(got, 'getCommentReplyInChangeRequest');
      const updated = await send('put', other, posted.body.urls.location, { body: { markdown: 'Edited' }, addedReactions: ['👍'] }).expect(200);
      expectContract(updated, 'updateCommentReplyInChangeRequest');
      expect(updated.body).toMatchObject({ body: { markdown: 'Edited' }, editedAt: expect.any(String), reactions: [{ emoji: '👍', count: 1 }] });
      expectErrorEnvelope(await send('put', commenter, posted.body.urls.location, { body: { markdown: 'not mine' } }), 403);
      const unreacted = await send('put', other, posted.body.urls.location, { removedReactions: ['👍'] }).expect(200);
      expect(unreacted.body.reactions).toEqual([]);

      expectErrorEnvelope(await del(commenter, posted.body.urls.location), 403);
      await del(other, posted.body.urls.location).expect(205);
      await del(other, posted.body.urls.location).expect(204);
      expect((await get(reader, urls.location).expect(200)).body.replies).toBe(3);
    });
  });

  describe('lists', () => {
    let listing: ChangeRequest;
    let made: { id: string; urls: { location: string } }[];

    beforeAll(async () => {
      listing = await createChangeRequest(t, org, space.id);
      made = [];
      for (const [actor, page] of [
        [commenter, 'page-main'],
        [other, undefined],
        [commenter, undefined],
      ] as const) {
        made.push((await send('post', actor, `${base(listing.id)}/comments`, { body: { markdown: 'listed' }, ...(page ? { page } : {}) }).expect(200)).body);
      }
      await send('put', reviewer, made[2].urls.location, { resolved: true }).expect(200);
    });

    const list = (query: Record<string, string | number | string[]>) =>
      t.http
        .get(`${base(listing.number)}/comments`)
        .query(query)
        .set(...reader.auth);
    const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((item) => item.id);

    it('orders, filters by status, targetPage and authors, and walks pages', async () => {
      const res = await list({}).expect(200);
      expectContract(res, 'listCommentsInChangeRequest');
      expect(ids(res)).toEqual(made.map((item) => item.id).reverse());
      expect(ids(await list({ order: 'asc' }).expect(200))).toEqual(made.map((item) => item.id));
      expect(ids(await list({ status: 'resolved' }).expect(200))).toEqual([made[2].id]);
      expect(ids(await list({ status: 'open', order: 'asc' }).expect(200))).toEqual([made[0].id, made[1].id]);
      expect(ids(await list({ targetPage: 'page-main' }).expect(200))).toEqual([made[0].id]);
      expect(ids(await list({ authors: commenter.user.id, order: 'asc' }).expect(200))).toEqual([made[0].id, made[2].id]);
      expect(ids(await list({ authors: [commenter.user.id, other.user.id] }).expect(200))).toHaveLength(3);
      const walked = await walkList(t, `${base(listing.number)}/comments`, reader, { limit: 2, order: 'asc' });
      expect(walked).toEqual({ ids: made.map((item) => item.id), pages: 2, count: 3 });
      await expectLimitUpTo1000(t, `${base(listing.number)}/comments`, reader);
      const row = await t.dataSource.getRepository(ChangeRequest).findOneByOrFail({ id: listing.id });
      expect(row.openComments).toBe(2);
    });

    it('lists the commenters of the change request', async () => {
      const res = await get(reader, `${base(listing.id)}/commenters`).expect(200);
      expectContract(res, 'listCommentersInChangeRequest');
      expect(res.body.items.map((member: { id: string }) => member.id).sort()).toEqual([commenter.user.id, other.user.id].sort());
      const walked = await walkList(t, `${base(listing.id)}/commenters`, reader, { limit: 1 });
      expect(walked).toMatchObject({ pages: 2, count: 2 });
    });
  });
  it('goes with its space when the retention purge removes it (comments, replies, reactions, change requests)', async () => {
    const doomed = await createSpace(t, org);
    await writePages(t, org, doomed.id, [{ pageId: 'p', title: 'P', slug: 'p', markdown: '# P' }]);
    const request = await createChangeRequest(t, org, doomed.id, [{ pageId: 'p', title: 'P', slug: 'p', markdown: '# P, changed' }]);
    const onSpace = (await send('post', commenter, `/v1/spaces/${doomed.id}/comments`, { page: 'p', node: 'p', body: { markdown: 'main' } }).expect(200)).body;
    const onRequest = (
      await send('post', commenter, `/v1/spaces/${doomed.id}/change-requests/${request.number}/comments`, { page: 'p', body: { markdown: 'cr' } }).expect(200)
    ).body;
    for (const target of [onSpace, onRequest]) {
      const reply = (await send('post', other, `${target.urls.location}/replies`, { body: { markdown: 'reply' } }).expect(200)).body;
      await send('put', other, target.urls.location, { addedReactions: ['👍'] }).expect(200);
      await send('put', other, reply.urls.location, { addedReactions: ['👍'] }).expect(200);
    }
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() - 8 * 24 * 3600 * 1000));
    await del(org.admin, `/v1/spaces/${doomed.id}`).expect(205);
    clock.mockRestore();
    expect((await t.app.get(SpaceRetentionService).purgeExpired()).ran).toBe(true);
    const [left] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM comments WHERE space_id = $1)::int AS comments,
              (SELECT count(*) FROM comment_replies WHERE comment_id = ANY($2))::int AS replies,
              (SELECT count(*) FROM comment_reactions WHERE comment_id = ANY($2))::int AS reactions,
              (SELECT count(*) FROM change_requests WHERE space_id = $1)::int AS change_requests`,
      [doomed.id, [onSpace.id, onRequest.id]],
    );
    expect(left).toEqual({ comments: 0, replies: 0, reactions: 0, change_requests: 0 });
  });
});
