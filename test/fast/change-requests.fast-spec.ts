import type { User } from '../../src/modules/users/user.entity';
import { SpaceAccessService } from '../../src/modules/access/space-access.service';
import { ChangeRequestContentService } from '../../src/modules/change-requests/change-request-content.service';
import { ChangeRequestMergeService } from '../../src/modules/change-requests/change-request-merge.service';
import { ChangeRequestsService } from '../../src/modules/change-requests/change-requests.service';
import { ReviewsService } from '../../src/modules/change-requests/reviews/reviews.service';
import { CommentsService } from '../../src/modules/comments/comments.service';
import { ContentService } from '../../src/modules/content/content.service';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { addMember, createOrganization, createSpace, Member } from './support/builders';
import { expectCode } from './support/expect-code';
import { useFastApp } from './support/fast-app';

/** Content tree writes, change requests, merges, merge rules, reviews and comments, through their services. */
describe('writing content through change requests', () => {
  const t = useFastApp();

  const access = (user: User, spaceId: string) => t.get(SpaceAccessService).resolve(user, spaceId);
  const open = async (by: Member, spaceId: string, subject = 'Edits') =>
    (await t.get(ChangeRequestsService).create(by.user, await access(by.user, spaceId), { subject })).changeRequest;
  const apply = async (by: Member, spaceId: string, number: number, changes: Record<string, unknown>[]) =>
    t.get(ChangeRequestContentService).apply(by.user, await access(by.user, spaceId), String(number), changes);
  const merge = async (by: Member, spaceId: string, number: number) =>
    t.get(ChangeRequestMergeService).merge(by.user, await access(by.user, spaceId), String(number));
  const mainPages = async (by: Member, spaceId: string) => (await t.get(ContentService).pages(await access(by.user, spaceId), undefined, false)).pages;

  /** A space whose main holds one page, `intro`, written through a merged change request; the page's id. */
  async function spaceWithPage(by: Member, spaceId: string): Promise<string> {
    const cr = await open(by, spaceId);
    const { changes } = await apply(by, spaceId, cr.number, [{ operation: 'insert_page', title: 'Intro', slug: 'intro', document: { markdown: 'Hello' } }]);
    await merge(by, spaceId, cr.number);
    return changes[0].page;
  }

  describe('content tree writes', () => {
    it('writes pages on the change request only, and on main once merged', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const cr = await open(org.admin, space.id);
      await apply(org.admin, space.id, cr.number, [
        { operation: 'insert_page', title: 'One', document: { markdown: 'First' } },
        { operation: 'insert_page', title: 'Two', document: { markdown: 'Second' } },
      ]);
      expect(await mainPages(org.admin, space.id)).toEqual([]);
      await merge(org.admin, space.id, cr.number);
      expect((await mainPages(org.admin, space.id)).map((page) => page.title)).toEqual(['One', 'Two']);
    });

    it('refuses a change naming a page that does not exist, and writes none of the batch', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const cr = await open(org.admin, space.id);
      await expectCode(
        apply(org.admin, space.id, cr.number, [
          { operation: 'insert_page', title: 'Kept?', document: { markdown: 'No' } },
          { operation: 'update_page', page: 'missing-page', document: { markdown: 'Nope' } },
        ]),
        'change_request.invalid_change',
        /missing-page/,
      );
      const head = await t.get(ChangeRequestsService).resolve(space.id, String(cr.number));
      expect(head.revision).toBe(cr.revision);
    });

    it('refuses two sibling pages with one slug', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const cr = await open(org.admin, space.id);
      await expectCode(
        apply(org.admin, space.id, cr.number, [
          { operation: 'insert_page', title: 'A', slug: 'same', document: { markdown: 'a' } },
          { operation: 'insert_page', title: 'B', slug: 'same', document: { markdown: 'b' } },
        ]),
        'change_request.invalid_change',
        /slug/,
      );
    });
  });

  describe('change requests', () => {
    it('numbers change requests one by one within a space', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      expect([(await open(org.admin, space.id)).number, (await open(org.admin, space.id)).number]).toEqual([1, 2]);
    });

    it('lets a reader neither open nor write a change request', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const reader = await addMember(t, org, 'read');
      await expectCode(open(reader, space.id), 'space.action_forbidden');
    });

    it('takes no more changes, reviews or status changes once merged', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const cr = await open(org.admin, space.id);
      await apply(org.admin, space.id, cr.number, [{ operation: 'insert_page', title: 'One', document: { markdown: 'x' } }]);
      await merge(org.admin, space.id, cr.number);
      await expectCode(
        apply(org.admin, space.id, cr.number, [{ operation: 'insert_page', title: 'Two', document: { markdown: 'y' } }]),
        'change_request.closed',
      );
      await expectCode(merge(org.admin, space.id, cr.number), 'change_request.closed');
      await expectCode(
        t.get(ChangeRequestsService).update(org.admin.user, await access(org.admin.user, space.id), String(cr.number), { status: 'open' }),
        'change_request.merged',
      );
    });

    it('refuses a merge when both sides changed the same page body differently', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const pageId = await spaceWithPage(org.admin, space.id);
      const [first, second] = [await open(org.admin, space.id), await open(org.admin, space.id)];
      await apply(org.admin, space.id, first.number, [{ operation: 'update_page', page: pageId, document: { markdown: 'Hello from the first' } }]);
      await apply(org.admin, space.id, second.number, [{ operation: 'update_page', page: pageId, document: { markdown: 'Hello from the second' } }]);
      await merge(org.admin, space.id, first.number);
      await expectCode(merge(org.admin, space.id, second.number), 'change_request.conflict');
      expect((await mainPages(org.admin, space.id))[0].markdown).toContain('Hello from the first');
    });

    it('merges changes to different pages made on both sides', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const pageId = await spaceWithPage(org.admin, space.id);
      const [first, second] = [await open(org.admin, space.id), await open(org.admin, space.id)];
      await apply(org.admin, space.id, first.number, [{ operation: 'update_page', page: pageId, document: { markdown: 'Changed' } }]);
      await apply(org.admin, space.id, second.number, [{ operation: 'insert_page', title: 'Added', document: { markdown: 'New' } }]);
      await merge(org.admin, space.id, first.number);
      await merge(org.admin, space.id, second.number);
      const pages = await mainPages(org.admin, space.id);
      expect(pages.map((page) => page.title)).toEqual(['Intro', 'Added']);
      expect(pages[0].markdown).toContain('Changed');
    });
  });

  describe('reviews and merge rules', () => {
    it("refuses an author's approval of their own change request", async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const cr = await open(org.admin, space.id);
      await expectCode(
        t.get(ReviewsService).submit(org.admin.user, await access(org.admin.user, space.id), String(cr.number), { status: 'approved' }),
        'change_request.own_review',
      );
    });

    it('refuses a merge until the required approvals are given on the current head', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const reviewer = await addMember(t, org, 'review');
      const reviews = t.get(ReviewsService);
      await reviews.setMergeRules(org.admin.user, await access(org.admin.user, space.id), { requiredApprovals: 1 });
      const cr = await open(org.admin, space.id);
      await apply(org.admin, space.id, cr.number, [{ operation: 'insert_page', title: 'One', document: { markdown: 'x' } }]);
      await expectCode(merge(org.admin, space.id, cr.number), 'change_request.merge_rule');
      await reviews.submit(reviewer.user, await access(reviewer.user, space.id), String(cr.number), { status: 'approved' });
      expect((await merge(org.admin, space.id, cr.number)).result).toBe('merge');
    });

    it('enforces the public merge rules of the space: an approved review is required', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await t.get(SpacesService).update(org.admin.user, space.id, { mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] } });
      const cr = await open(org.admin, space.id);
      await expectCode(merge(org.admin, space.id, cr.number), 'change_request.merge_rule');
    });

    it('refuses a change request behind main under require_up_to_date_change_request, until main is pulled into it', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await t.get(SpacesService).update(org.admin.user, space.id, { mergeRules: { type: 'rules', rules: [{ rule: 'require_up_to_date_change_request' }] } });
      const [behind, ahead] = [await open(org.admin, space.id), await open(org.admin, space.id)];
      await apply(org.admin, space.id, behind.number, [{ operation: 'insert_page', title: 'Behind', document: { markdown: 'b' } }]);
      await apply(org.admin, space.id, ahead.number, [{ operation: 'insert_page', title: 'Ahead', document: { markdown: 'a' } }]);
      await merge(org.admin, space.id, ahead.number);
      await expectCode(merge(org.admin, space.id, behind.number), 'change_request.merge_rule');
      await t.get(ChangeRequestMergeService).update(org.admin.user, await access(org.admin.user, space.id), String(behind.number));
      await merge(org.admin, space.id, behind.number);
      expect((await mainPages(org.admin, space.id)).map((page) => page.title).sort()).toEqual(['Ahead', 'Behind']);
    });
  });

  describe('comments', () => {
    it('lets only the author edit a comment, and a space admin delete it', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const commenter = await addMember(t, org, 'comment');
      const other = await addMember(t, org, 'comment');
      const comments = t.get(CommentsService);
      const { row } = await comments.post(commenter.user, await access(commenter.user, space.id), null, { body: { markdown: 'A remark' } });
      await expectCode(
        comments.update(other.user, await access(other.user, space.id), null, row.comment.id, { body: { markdown: 'Rewritten' } }),
        'comment.edit_forbidden',
      );
      await expectCode(comments.delete(other.user, await access(other.user, space.id), null, row.comment.id), 'comment.delete_forbidden');
      expect(await comments.delete(org.admin.user, await access(org.admin.user, space.id), null, row.comment.id)).toBe(true);
    });

    it('refuses a comment on a page the revision does not have, and counts open comments of a change request', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const comments = t.get(CommentsService);
      await expectCode(
        comments.post(org.admin.user, await access(org.admin.user, space.id), null, { page: 'nope', body: { markdown: 'Where?' } }),
        'comment.unknown_page',
      );
      const cr = await open(org.admin, space.id);
      const { row } = await comments.post(org.admin.user, await access(org.admin.user, space.id), String(cr.number), { body: { markdown: 'On the request' } });
      expect((await t.get(ChangeRequestsService).resolve(space.id, String(cr.number))).openComments).toBe(1);
      await comments.update(org.admin.user, await access(org.admin.user, space.id), String(cr.number), row.comment.id, { resolved: true });
      expect((await t.get(ChangeRequestsService).resolve(space.id, String(cr.number))).openComments).toBe(0);
    });
  });
});
