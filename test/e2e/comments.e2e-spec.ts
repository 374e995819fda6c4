import { Actor, addMember, createOrganization, OrgFixture } from '../support/builders';
import { createChangeRequest, editPage, writePages } from '../support/comment-builders';
import { expectContract, expectErrorEnvelope } from '../support/contract';
import { expectLimitUpTo1000, grantSpace, walkList } from '../support/org-admin-builders';
import { createSpace } from '../support/space-builders';
import { createTestApp, TestApp } from '../support/test-app';
import { ChangeRequest } from '../../src/modules/change-requests/change-request.entity';
import { Clock } from '../../src/modules/spaces/clock';
import { SpaceRetentionService } from '../../src/modules/spaces/space-retention.service';

/** The path of an API URL (`urls.location`), for supertest. */
const at = (url: string) => url.replace(/^http:\/\/quire\.test/, '');

const INTRO = '# Welcome\n\nHello there.\n\n## Setup\n\nRun the **installer**.\n\n## Setup\n\nAgain.\n';

describe('space comments (section 4.4)', () => {
  let t: TestApp;
  let org: OrgFixture;
  let guest: Actor;
  let reader: Actor;
  let commenter: Actor;
  let other: Actor;
  let reviewer: Actor;
  let space: { id: string };
  let revision: string;

  beforeAll(async () => {
    t = await createTestApp();
    org = await createOrganization(t);
    guest = await addMember(t, org, null);
    reader = await addMember(t, org, 'read');
    commenter = await addMember(t, org, 'comment', { name: 'Cora Commenter' });
    other = await addMember(t, org, 'comment', { name: 'Otto Other' });
    reviewer = await addMember(t, org, 'review');
    space = await createSpace(t, org);
    revision = await writePages(t, org, space.id, [
      { pageId: 'page-intro', title: 'Introduction', slug: 'intro', markdown: INTRO },
      { pageId: 'page-faq', title: 'FAQ', slug: 'faq', markdown: 'Questions.' },
    ]);
  });
  afterAll(() => t.close());

  const base = () => `/v1/spaces/${space.id}`;
  const post = (actor: Actor, body: object, path = `${base()}/comments`) =>
    t.http
      .post(at(path))
      .set(...actor.auth)
      .send(body);
  const put = (actor: Actor, path: string, body: object) =>
    t.http
      .put(at(path))
      .set(...actor.auth)
      .send(body);
  const get = (actor: Actor, path: string) => t.http.get(at(path)).set(...actor.auth);
  const del = (actor: Actor, path: string) => t.http.delete(at(path)).set(...actor.auth);
  const spaceComments = async () => (await get(org.admin, base()).expect(200)).body.comments as number;
  const comment = async (actor: Actor, markdown: string, extra: object = {}) => {
    const res = await post(actor, { body: { markdown }, ...extra });
    expect(res.status).toBe(200);
    return res.body as { id: string; urls: { location: string } };
  };

  describe('access', () => {
    const routes = () =>
      [
        ['get', `${base()}/comments`],
        ['post', `${base()}/comments`],
        ['get', `${base()}/comments/x`],
        ['put', `${base()}/comments/x`],
        ['delete', `${base()}/comments/x`],
        ['get', `${base()}/comments/x/replies`],
        ['post', `${base()}/comments/x/replies`],
        ['get', `${base()}/comments/x/replies/y`],
        ['put', `${base()}/comments/x/replies/y`],
        ['delete', `${base()}/comments/x/replies/y`],
        ['get', `${base()}/commenters`],
      ] as const;

    it('answers 403 to a guest without a grant, and to a read member writing', async () => {
      for (const [method, path] of routes()) {
        expectErrorEnvelope(
          await t.http[method](path)
            .set(...guest.auth)
            .send({ body: { markdown: 'x' } }),
          403,
        );
      }
      const before = await spaceComments();
      expectErrorEnvelope(await post(reader, { body: { markdown: 'I may only read' } }), 403, /comment permission/);
      expect(await spaceComments()).toBe(before);
      // Reading is open to readers.
      expectContract(await get(reader, `${base()}/comments`).expect(200), 'listCommentsInSpace');
    });

    it('refuses replies and reactions from a read member', async () => {
      const { id } = await comment(commenter, 'Reply to me');
      expectErrorEnvelope(await post(reader, { body: { markdown: 'no' } }, `${base()}/comments/${id}/replies`), 403);
      expectErrorEnvelope(await put(reader, `${base()}/comments/${id}`, { addedReactions: ['👍'] }), 403);
    });

    it('answers 404 on a deleted space', async () => {
      const doomed = await createSpace(t, org);
      await del(org.admin, `/v1/spaces/${doomed.id}`).expect(205);
      expectErrorEnvelope(await post(commenter, { body: { markdown: 'late' } }, `/v1/spaces/${doomed.id}/comments`), 404);
    });
  });

  describe('POST /comments', () => {
    it('posts a comment on the space: 200, every field, the counter moves', async () => {
      const before = await spaceComments();
      const res = await post(commenter, { body: { markdown: 'First **comment**' } });
      expect(res.status).toBe(200);
      expectContract(res, 'postCommentInSpace');
      expect(res.body).toEqual({
        object: 'comment',
        id: expect.any(String),
        postedBy: expect.objectContaining({ object: 'user', id: commenter.user.id, displayName: 'Cora Commenter', email: commenter.user.email }),
        postedAt: expect.any(String),
        reactions: [],
        replies: 0,
        repliers: [],
        body: { markdown: 'First **comment**' },
        target: { space: space.id, revision },
        urls: { location: `http://quire.test/v1/spaces/${space.id}/comments/${res.body.id}` },
        permissions: { view: true, edit: true, reply: true, delete: true },
        status: 'open',
      });
      expect(await spaceComments()).toBe(before + 1);
      // Another commenter may reply but neither edit nor delete it.
      const seen = await get(other, res.body.urls.location).expect(200);
      expect(seen.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
      expect((await get(reader, res.body.urls.location).expect(200)).body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      expect((await get(org.admin, res.body.urls.location).expect(200)).body.permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
    });

    it('targets a page and a node (a heading anchor) of the active revision', async () => {
      const res = await post(commenter, { page: 'page-intro', node: 'setup-1', body: { markdown: 'On the second setup' } }).expect(200);
      expectContract(res, 'postCommentInSpace');
      expect(res.body.target).toEqual({
        space: space.id,
        revision,
        page: { id: 'page-intro', title: 'Introduction', path: 'intro', createdAt: expect.any(String), updatedAt: expect.any(String), outdated: false },
        node: { id: 'setup-1', preview: 'Setup' },
      });
      const onPage = await post(commenter, { page: 'page-faq', body: { markdown: 'On the FAQ' } }).expect(200);
      expect(onPage.body.target.page).toMatchObject({ id: 'page-faq', title: 'FAQ', outdated: false });
      expect(onPage.body.target).not.toHaveProperty('node');
    });

    it('refuses a page or a node that is not in the target revision (400), and a node without its page', async () => {
      const before = await spaceComments();
      expectErrorEnvelope(await post(commenter, { page: 'nope', body: { markdown: 'x' } }), 400, /page/);
      expectErrorEnvelope(await post(commenter, { page: 'page-intro', node: 'nope', body: { markdown: 'x' } }), 400, /node/);
      expectErrorEnvelope(await post(commenter, { page: 'page-faq', node: 'setup', body: { markdown: 'x' } }), 400, /node/);
      expectErrorEnvelope(await post(commenter, { node: 'setup', body: { markdown: 'x' } }), 400, /node/);
      expect(await spaceComments()).toBe(before);
    });

    it('validates the body: required, markdown 1 to 100000 characters, no null, no other shape', async () => {
      expectErrorEnvelope(await post(commenter, {}), 400, /body/);
      expectErrorEnvelope(await post(commenter, { body: null }), 400, /body/);
      expectErrorEnvelope(await post(commenter, { body: {} }), 400, /markdown/);
      expectErrorEnvelope(await post(commenter, { body: { markdown: null } }), 400, /markdown/);
      expectErrorEnvelope(await post(commenter, { body: { markdown: '' } }), 400, /markdown/);
      expectErrorEnvelope(await post(commenter, { body: { markdown: 'x'.repeat(100_001) } }), 400, /markdown/);
      expectErrorEnvelope(await post(commenter, { body: { document: { object: 'document', data: {}, nodes: [] } } }), 400, /document/);
      expectErrorEnvelope(await post(commenter, { page: null, body: { markdown: 'x' } }), 400, /page/);
      expectErrorEnvelope(await post(commenter, { node: null, page: 'page-intro', body: { markdown: 'x' } }), 400, /node/);
      const longest = await post(commenter, { body: { markdown: 'x'.repeat(100_000) } }).expect(200);
      expect(longest.body.body.markdown).toHaveLength(100_000);
    });
  });

  describe('GET /comments/{commentId}', () => {
    it('answers the body as markdown, or as the public JSON document with format=document', async () => {
      const { id } = await comment(commenter, '# Title\n\nSome *text*');
      const markdown = await get(reader, `${base()}/comments/${id}?format=markdown`).expect(200);
      expectContract(markdown, 'getCommentInSpace');
      expect(markdown.body.body).toEqual({ markdown: '# Title\n\nSome *text*' });
      const document = await get(reader, `${base()}/comments/${id}?format=document`).expect(200);
      expectContract(document, 'getCommentInSpace');
      expect(document.body.body.document).toMatchObject({ object: 'document', nodes: [{ type: 'heading-1' }, { type: 'paragraph' }] });
      expectErrorEnvelope(await get(reader, `${base()}/comments/${id}?format=html`), 400, /format/);
    });

    it('answers 404 for an unknown comment, and for a comment of another space', async () => {
      const { id } = await comment(commenter, 'here');
      const elsewhere = await createSpace(t, org);
      expectErrorEnvelope(await get(reader, `${base()}/comments/nope`), 404, /Comment/);
      expectErrorEnvelope(await get(org.admin, `/v1/spaces/${elsewhere.id}/comments/${id}`), 404, /Comment/);
    });

    it('shows the page outdated once its body changed after posting', async () => {
      const faq = await comment(commenter, 'Stale soon', { page: 'page-faq' });
      const intro = await comment(commenter, 'Stays fresh', { page: 'page-intro' });
      await editPage(t, org, space.id, 'page-faq', 'Questions, revised.');
      const stale = await get(reader, faq.urls.location).expect(200);
      expectContract(stale, 'getCommentInSpace');
      expect(stale.body.target.page).toMatchObject({ id: 'page-faq', outdated: true });
      expect(stale.body.target.revision).toBe(revision);
      expect((await get(reader, intro.urls.location).expect(200)).body.target.page.outdated).toBe(false);
      // Posted on the new revision, the page is current again.
      const fresh = await comment(commenter, 'Fresh', { page: 'page-faq' });
      expect((await get(reader, fresh.urls.location).expect(200)).body.target.page.outdated).toBe(false);
    });
    it('keeps showing a page removed since, from the revision the comment was posted on, as outdated', async () => {
      const elsewhere = await createSpace(t, org);
      await writePages(t, org, elsewhere.id, [
        { pageId: 'gone', title: 'Soon gone', slug: 'gone', markdown: '# Gone' },
        { pageId: 'kept', title: 'Kept', slug: 'kept', markdown: '# Kept' },
      ]);
      const res = await post(commenter, { page: 'gone', node: 'gone', body: { markdown: 'About to vanish' } }, `/v1/spaces/${elsewhere.id}/comments`).expect(
        200,
      );
      await writePages(t, org, elsewhere.id, [{ pageId: 'kept', title: 'Kept', slug: 'kept', markdown: '# Kept' }]);
      const after = await get(reader, res.body.urls.location).expect(200);
      expectContract(after, 'getCommentInSpace');
      expect(after.body.target).toMatchObject({ page: { id: 'gone', title: 'Soon gone', outdated: true }, node: { id: 'gone', preview: 'Gone' } });
    });

    it('shows authors without their e-mail to a caller whose only tie to them is a guest membership', async () => {
      const invited = await addMember(t, org, null);
      await grantSpace(t, org, space.id, { userId: invited.user.id }, 'comment');
      const { urls } = await comment(commenter, 'Seen by a guest');
      const res = await get(invited, urls.location).expect(200);
      expectContract(res, 'getCommentInSpace');
      expect(res.body.postedBy).toMatchObject({ id: commenter.user.id });
      expect(res.body.postedBy).not.toHaveProperty('email');
      // The guest may comment where they were granted it, and sees their own e-mail.
      const own = await post(invited, { body: { markdown: 'Guest comment' } }).expect(200);
      expect(own.body.postedBy.email).toBe(invited.user.email);
    });
  });

  describe('PUT /comments/{commentId}', () => {
    it('lets the author edit the body (editedAt set) and nobody else', async () => {
      const { id, urls } = await comment(commenter, 'Typo hree');
      const reacted = await put(commenter, urls.location, { addedReactions: ['🎉'] }).expect(200);
      expect(reacted.body).not.toHaveProperty('editedAt');
      const res = await put(commenter, urls.location, { body: { markdown: 'Typo here' } }).expect(200);
      expectContract(res, 'updateCommentInSpace');
      expect(res.body).toMatchObject({ id, body: { markdown: 'Typo here' }, editedAt: expect.any(String) });
      expectErrorEnvelope(await put(other, urls.location, { body: { markdown: 'Hijacked' } }), 403, /author/);
      expectErrorEnvelope(await put(org.admin, urls.location, { body: { markdown: 'Hijacked' } }), 403, /author/);
      expect((await get(reader, urls.location).expect(200)).body.body.markdown).toBe('Typo here');
      expectErrorEnvelope(await put(commenter, urls.location, { body: null }), 400, /body/);
      expectErrorEnvelope(await put(commenter, urls.location, { resolved: null }), 400, /resolved/);
      expectErrorEnvelope(await put(commenter, urls.location, { resolved: 'yes' }), 400, /resolved/);
      expectErrorEnvelope(await put(commenter, `${base()}/comments/nope`, { resolved: true }), 404, /Comment/);
    });

    it('groups reactions by emoji: the same user twice counts once, removal takes only their own', async () => {
      const { urls } = await comment(commenter, 'React to me');
      await put(commenter, urls.location, { addedReactions: ['👍', '👍'] }).expect(200);
      const twice = await put(commenter, urls.location, { addedReactions: ['👍'] }).expect(200);
      expect(twice.body.reactions).toEqual([
        { emoji: '👍', count: 1, users: [{ user: expect.objectContaining({ id: commenter.user.id }), reactedAt: expect.any(String) }] },
      ]);
      await put(other, urls.location, { addedReactions: ['👍', '1f389'] }).expect(200);
      const both = await get(reader, urls.location).expect(200);
      expectContract(both, 'getCommentInSpace');
      expect(both.body.reactions.map((group: { emoji: string; count: number }) => [group.emoji, group.count])).toEqual([
        ['👍', 2],
        ['1f389', 1],
      ]);
      expect(both.body.reactions[0].users.map((entry: { user: { id: string } }) => entry.user.id)).toEqual([commenter.user.id, other.user.id]);
      const removed = await put(commenter, urls.location, { removedReactions: ['👍', '🙃'] }).expect(200);
      expect(removed.body.reactions).toEqual([
        { emoji: '👍', count: 1, users: [expect.objectContaining({ user: expect.objectContaining({ id: other.user.id }) })] },
        expect.objectContaining({ emoji: '1f389', count: 1 }),
      ]);
      expectErrorEnvelope(await put(commenter, urls.location, { addedReactions: [''] }), 400, /addedReactions/);
      expectErrorEnvelope(await put(commenter, urls.location, { addedReactions: ['x'.repeat(51)] }), 400, /addedReactions/);
      await put(commenter, urls.location, { addedReactions: ['x'.repeat(50)] }).expect(200);
      expectErrorEnvelope(await put(commenter, urls.location, { addedReactions: Array.from({ length: 51 }, (_, i) => `e${i}`) }), 400, /addedReactions/);
      expectErrorEnvelope(await put(commenter, urls.location, { removedReactions: 'not a list' }), 400, /removedReactions/);
    });

    it('resolves (reviewers or the author) and reopens; the counter follows', async () => {
      const { urls } = await comment(commenter, 'Please fix');
      const before = await spaceComments();
      expectErrorEnvelope(await put(other, urls.location, { resolved: true }), 403, /review/);
      const resolved = await put(reviewer, urls.location, { resolved: true }).expect(200);
      expectContract(resolved, 'updateCommentInSpace');
      expect(resolved.body).toMatchObject({
        status: 'resolved',
        resolvedAt: expect.any(String),
        resolvedBy: expect.objectContaining({ id: reviewer.user.id }),
      });
      expect(await spaceComments()).toBe(before - 1);
      // Resolving a resolved comment changes nothing.
      const again = await put(commenter, urls.location, { resolved: true }).expect(200);
      expect(again.body.resolvedBy.id).toBe(reviewer.user.id);
      expect(await spaceComments()).toBe(before - 1);
      const reopened = await put(commenter, urls.location, { resolved: false }).expect(200);
      expectContract(reopened, 'updateCommentInSpace');
      expect(reopened.body.status).toBe('open');
      expect(reopened.body).not.toHaveProperty('resolvedAt');
      expect(reopened.body).not.toHaveProperty('resolvedBy');
      expect(await spaceComments()).toBe(before);
      await put(commenter, urls.location, { resolved: false }).expect(200);
      expect(await spaceComments()).toBe(before);
    });

    it('keeps the counter exact under concurrent posts and resolves (each write under the space lock)', async () => {
      const before = await spaceComments();
      const posted = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 ? commenter : other, { body: { markdown: `parallel ${i}` } })));
      expect(posted.map((res) => res.status)).toEqual(Array(8).fill(200));
      expect(await spaceComments()).toBe(before + 8);
      const target = posted[0].body.urls.location as string;
      const resolves = await Promise.all(Array.from({ length: 6 }, () => put(reviewer, target, { resolved: true })));
      expect(resolves.map((res) => res.status)).toEqual(Array(6).fill(200));
      expect(await spaceComments()).toBe(before + 7);
      const deletes = await Promise.all(Array.from({ length: 4 }, () => del(org.admin, posted[1].body.urls.location)));
      expect(deletes.map((res) => res.status).sort()).toEqual([204, 204, 204, 205]);
      expect(await spaceComments()).toBe(before + 6);
    });

    it('writes nothing when one part of the update is refused', async () => {
      const { urls } = await comment(commenter, 'Atomic');
      expectErrorEnvelope(await put(other, urls.location, { addedReactions: ['👀'], body: { markdown: 'nope' } }), 403);
      expect((await get(reader, urls.location).expect(200)).body.reactions).toEqual([]);
    });
  });

  describe('replies', () => {
    it('posts, reads, edits, reacts to and lists replies; the comment counts them', async () => {
      const { id, urls } = await comment(commenter, 'Thread');
      const first = await post(other, { body: { markdown: 'First reply' } }, `${urls.location}/replies`);
      expect(first.status).toBe(200);
      expectContract(first, 'postCommentReplyInSpace');
      expect(first.body).toEqual({
        object: 'comment-reply',
        id: expect.any(String),
        postedBy: expect.objectContaining({ id: other.user.id }),
        postedAt: expect.any(String),
        reactions: [],
        body: { markdown: 'First reply' },
        urls: { location: `http://quire.test/v1/spaces/${space.id}/comments/${id}/replies/${first.body.id}` },
        permissions: { view: true, edit: true, reply: true, delete: true },
      });
      await post(other, { body: { markdown: 'Second reply' } }, `${urls.location}/replies`).expect(200);
      await post(commenter, { body: { markdown: 'Third reply' } }, `${urls.location}/replies`).expect(200);
      const parent = await get(reader, urls.location).expect(200);
      expectContract(parent, 'getCommentInSpace');
      expect(parent.body.replies).toBe(3);
      expect(parent.body.repliers).toEqual([
        { user: expect.objectContaining({ id: other.user.id }), count: 2, updatedAt: expect.any(String) },
        { user: expect.objectContaining({ id: commenter.user.id }), count: 1, updatedAt: expect.any(String) },
      ]);

      const got = await get(reader, first.body.urls.location).expect(200);
      expectContract(got, 'getCommentReplyInSpace');
      expect(got.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      const asDocument = await get(reader, `${first.body.urls.location}?format=document`).expect(200);
      expectContract(asDocument, 'getCommentReplyInSpace');
      expect(asDocument.body.body.document.object).toBe('document');

      const edited = await put(other, first.body.urls.location, { body: { markdown: 'First reply, edited' }, addedReactions: ['👍'] }).expect(200);
      expectContract(edited, 'updateCommentReplyInSpace');
      expect(edited.body).toMatchObject({ body: { markdown: 'First reply, edited' }, editedAt: expect.any(String), reactions: [{ emoji: '👍', count: 1 }] });
      expectErrorEnvelope(await put(commenter, first.body.urls.location, { body: { markdown: 'Not mine' } }), 403, /author/);
      const reacted = await put(commenter, first.body.urls.location, { addedReactions: ['👍'] }).expect(200);
      expect(reacted.body.reactions).toEqual([expect.objectContaining({ emoji: '👍', count: 2 })]);
      expect(reacted.body).toHaveProperty('editedAt');
      expectErrorEnvelope(await put(commenter, first.body.urls.location, { resolved: true }), 400, /resolved/);

      const list = await get(reader, `${urls.location}/replies`).expect(200);
      expectContract(list, 'listCommentRepliesInSpace');
      expect(list.body.items.map((reply: { body: { markdown: string } }) => reply.body.markdown)).toEqual([
        'First reply, edited',
        'Second reply',
        'Third reply',
      ]);
      const walked = await walkList(t, at(`${urls.location}/replies`), reader, { limit: 2 });
      expect(walked).toMatchObject({ pages: 2, count: 3 });
      expect(walked.ids).toEqual(list.body.items.map((reply: { id: string }) => reply.id));
    });

    it('validates reply bodies and answers 404 for unknown comments and replies', async () => {
      const { urls } = await comment(commenter, 'Validate');
      expectErrorEnvelope(await post(other, {}, `${urls.location}/replies`), 400, /body/);
      expectErrorEnvelope(await post(other, { body: { markdown: '' } }, `${urls.location}/replies`), 400, /markdown/);
      expectErrorEnvelope(await post(other, { body: { markdown: 'x'.repeat(100_001) } }, `${urls.location}/replies`), 400, /markdown/);
      await post(other, { body: { markdown: 'x'.repeat(100_000) } }, `${urls.location}/replies`).expect(200);
      expectErrorEnvelope(await post(other, { body: { markdown: 'x' } }, `${base()}/comments/nope/replies`), 404, /Comment/);
      expectErrorEnvelope(await get(reader, `${urls.location}/replies/nope`), 404, /Reply/);
    });

    it('deletes a reply: the author or an admin (205), nobody else; 204 when it did not exist', async () => {
      const { urls } = await comment(commenter, 'Deletions');
      const mine = (await post(other, { body: { markdown: 'mine' } }, `${urls.location}/replies`).expect(200)).body;
      const second = (await post(other, { body: { markdown: 'second' } }, `${urls.location}/replies`).expect(200)).body;
      expectErrorEnvelope(await del(commenter, mine.urls.location), 403, /author/);
      await del(other, mine.urls.location).expect(205);
      await del(org.admin, second.urls.location).expect(205);
      await del(org.admin, second.urls.location).expect(204);
      expectErrorEnvelope(await get(reader, mine.urls.location), 404);
      expect((await get(reader, urls.location).expect(200)).body.replies).toBe(0);
    });
  });

  describe('DELETE /comments/{commentId}', () => {
    it('deletes a comment and its replies (205), counts it out once, and answers 204 afterwards', async () => {
      const { urls } = await comment(commenter, 'Doomed');
      const reply = (await post(other, { body: { markdown: 'doomed too' } }, `${urls.location}/replies`).expect(200)).body;
      const before = await spaceComments();
      expectErrorEnvelope(await del(other, urls.location), 403, /author/);
      expectErrorEnvelope(await del(reviewer, urls.location), 403, /author/);
      const res = await del(commenter, urls.location).expect(205);
      expect(res.text).toBe('');
      expect(await spaceComments()).toBe(before - 1);
      expectErrorEnvelope(await get(reader, urls.location), 404);
      expectErrorEnvelope(await get(reader, reply.urls.location), 404);
      await del(commenter, urls.location).expect(204);
      expect(await spaceComments()).toBe(before - 1);
    });

    it('lets a space admin delete anyone’s comment; a resolved one leaves the counter alone', async () => {
      const { urls } = await comment(commenter, 'Resolved then deleted');
      await put(commenter, urls.location, { resolved: true }).expect(200);
      const before = await spaceComments();
      await del(org.admin, urls.location).expect(205);
      expect(await spaceComments()).toBe(before);
    });
  });

  describe('GET /comments (filters, order, pagination) and /commenters', () => {
    let listed: { id: string; urls: { location: string } }[];
    let fresh: { id: string };
    let lister: Actor;
    let reporter: Actor;

    beforeAll(async () => {
      fresh = await createSpace(t, org);
      await writePages(t, org, fresh.id, [
        { pageId: 'p1', title: 'One', slug: 'one', markdown: '# One' },
        { pageId: 'p2', title: 'Two', slug: 'two', markdown: '# Two' },
      ]);
      lister = await addMember(t, org, 'comment');
      reporter = await addMember(t, org, 'comment');
      listed = [];
      for (const [actor, page] of [
        [lister, 'p1'],
        [reporter, 'p1'],
        [lister, 'p2'],
        [reporter, undefined],
        [lister, undefined],
      ] as const) {
        const res = await post(actor, { body: { markdown: `by ${actor.user.id}` }, ...(page ? { page } : {}) }, `/v1/spaces/${fresh.id}/comments`).expect(200);
        listed.push(res.body);
      }
      await put(reviewer, listed[1].urls.location, { resolved: true }).expect(200);
      await post(reviewer, { body: { markdown: 'a reply' } }, `${listed[0].urls.location}/replies`).expect(200);
    });

    const list = (query: Record<string, string | number | string[]>) =>
      t.http
        .get(`/v1/spaces/${fresh.id}/comments`)
        .query(query)
        .set(...reader.auth);
    const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((item) => item.id);
    const all = () => listed.map((item) => item.id);

    it('lists newest first by default, oldest first with order=asc', async () => {
      const res = await list({}).expect(200);
      expectContract(res, 'listCommentsInSpace');
      expect(res.body.count).toBe(5);
      expect(ids(res)).toEqual([...all()].reverse());
      expect(ids(await list({ order: 'asc' }).expect(200))).toEqual(all());
      expectErrorEnvelope(await list({ order: 'up' }), 400, /order/);
    });

    it('filters by status (default all)', async () => {
      expect(ids(await list({ status: 'resolved' }).expect(200))).toEqual([listed[1].id]);
      expect(ids(await list({ status: 'open', order: 'asc' }).expect(200))).toEqual([listed[0].id, listed[2].id, listed[3].id, listed[4].id]);
      expect((await list({ status: 'all' }).expect(200)).body.count).toBe(5);
      expectErrorEnvelope(await list({ status: 'closed' }), 400, /status/);
    });

    it('filters by targetPage and by authors (one or several)', async () => {
      expect(ids(await list({ targetPage: 'p1', order: 'asc' }).expect(200))).toEqual([listed[0].id, listed[1].id]);
      expect(ids(await list({ targetPage: 'nope' }).expect(200))).toEqual([]);
      expect(ids(await list({ authors: reporter.user.id, order: 'asc' }).expect(200))).toEqual([listed[1].id, listed[3].id]);
      expect((await list({ authors: [reporter.user.id, lister.user.id] }).expect(200)).body.count).toBe(5);
      expect(ids(await list({ authors: lister.user.id, targetPage: 'p2', status: 'open' }).expect(200))).toEqual([listed[2].id]);
    });

    it('walks every page with next.page, and accepts limit up to 1000', async () => {
      const walked = await walkList(t, `/v1/spaces/${fresh.id}/comments`, reader, { limit: 2, order: 'asc' }, (res) =>
        expectContract(res, 'listCommentsInSpace'),
      );
      expect(walked).toEqual({ ids: all(), pages: 3, count: 5 });
      const filtered = await walkList(t, `/v1/spaces/${fresh.id}/comments`, reader, { limit: 1, authors: lister.user.id });
      expect(filtered).toEqual({ ids: [listed[4].id, listed[2].id, listed[0].id], pages: 3, count: 3 });
      await expectLimitUpTo1000(t, `/v1/spaces/${fresh.id}/comments`, reader);
      expectErrorEnvelope(await list({ page: 'garbage' }), 400);
    });

    it('lists the members who commented or replied, paginated', async () => {
      const res = await get(reader, `/v1/spaces/${fresh.id}/commenters`).expect(200);
      expectContract(res, 'listCommentersInSpace');
      expect(res.body.count).toBe(3);
      expect(res.body.items.map((member: { id: string }) => member.id).sort()).toEqual([lister.user.id, reporter.user.id, reviewer.user.id].sort());
      // Ordered by user id: the reviewer joined first.
      expect(res.body.items[0]).toMatchObject({ object: 'member', id: reviewer.user.id, role: 'review', user: { object: 'user', id: reviewer.user.id } });
      const walked = await walkList(t, `/v1/spaces/${fresh.id}/commenters`, reader, { limit: 2 });
      expect(walked).toMatchObject({ pages: 2, count: 3 });
      expect(walked.ids).toEqual(res.body.items.map((member: { id: string }) => member.id));
      await expectLimitUpTo1000(t, `/v1/spaces/${fresh.id}/commenters`, reader);
      const empty = await get(reader, `/v1/spaces/${space.id}/commenters?limit=1000`).expect(200);
      expect(empty.body.items.map((member: { id: string }) => member.id)).not.toContain(lister.user.id);
    });

    it('keeps the space counter equal to its open comments', async () => {
      const res = await get(reader, `/v1/spaces/${fresh.id}`).expect(200);
      expect(res.body.comments).toBe(4);
    });
  });
});

/** The path of an API URL (`urls.location`), for supertest. */

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
