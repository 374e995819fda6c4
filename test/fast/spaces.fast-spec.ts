import { CollectionAccessService } from '../../src/modules/access/collection-access.service';
import { GrantsService } from '../../src/modules/access/grants.service';
import { SpaceAccessService } from '../../src/modules/access/space-access.service';
import { CollectionsService } from '../../src/modules/collections/collections.service';
import { InvitesService } from '../../src/modules/invites/invites.service';
import { MembersService } from '../../src/modules/members/members.service';
import { SpacesService } from '../../src/modules/spaces/spaces.service';
import { addMember, createCollection, createOrganization, createSpace } from './support/builders';
import { expectCode } from './support/expect-code';
import { useFastApp } from './support/fast-app';

/** Access and policies, the spaces' lifecycle and collections, through their services. */
describe('spaces, collections and access', () => {
  const t = useFastApp();

  describe('access', () => {
    it('answers not found, never forbidden, to a user outside the organization', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const stranger = (await createOrganization(t)).admin;
      await expectCode(t.get(SpaceAccessService).resolve(stranger.user, space.id), 'space.not_found');
    });

    it('gives a reader of the organization read but not edit, and a grant raises it on one space only', async () => {
      const org = await createOrganization(t);
      const [space, other] = [await createSpace(t, org), await createSpace(t, org)];
      const reader = await addMember(t, org, 'read');
      const access = t.get(SpaceAccessService);
      expect((await access.resolve(reader.user, space.id)).permissions.view).toBe(true);
      await expectCode(access.require(reader.user, space.id, 'edit'), 'space.action_forbidden');

      await t.get(GrantsService).invite({ kind: 'space', id: space.id, organizationId: org.id }, { role: 'edit', users: [reader.user.id] });
      expect((await access.require(reader.user, space.id, 'edit')).level).toBe('edit');
      await expectCode(access.require(reader.user, other.id, 'edit'), 'space.action_forbidden');
    });

    it('grants to users and teams all or none: one stranger writes nothing', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const member = await addMember(t, org, 'read');
      const stranger = (await createOrganization(t)).admin;
      const target = { kind: 'space' as const, id: space.id, organizationId: org.id };
      const grants = t.get(GrantsService);
      await expectCode(grants.invite(target, { role: 'edit', users: [member.user.id, stranger.user.id] }), 'access.grant_unknown_user');
      expect((await grants.listUsers(target, { limit: 100 })).items.map((grant) => grant.user.id)).not.toContain(member.user.id);
      await expectCode(grants.invite(target, { role: 'edit' }), 'access.grant_empty');
      await expectCode(grants.remove(target, { userId: member.user.id }), 'access.grant_not_found');
    });

    it('takes edit away from everyone, admins included, while a space is locked', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await t.get(SpacesService).update(org.admin.user, space.id, { editMode: 'locked' });
      await expectCode(t.get(SpaceAccessService).require(org.admin.user, space.id, 'edit'), 'space.locked');
    });

    it('lets only admins and creators create at the top level', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      await expectCode(createSpace(t, org, { by: editor }), 'collection.top_level_forbidden');
      const creator = await addMember(t, org, 'create');
      expect((await createSpace(t, org, { by: creator })).organizationId).toBe(org.id);
    });
  });

  describe('spaces', () => {
    it('refuses in-collection visibility for a space at the top level', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      await expectCode(t.get(SpacesService).update(org.admin.user, space.id, { visibility: 'in-collection' }), 'space.in_collection_outside_collection');
    });

    it('refuses merge rules naming users outside the organization', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const stranger = (await createOrganization(t)).admin;
      await expectCode(
        t
          .get(SpacesService)
          .update(org.admin.user, space.id, { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [stranger.user.id] }] } }),
        'space.merge_rules_invalid',
      );
    });

    it('hides a deleted space, restores it once, and refuses restoring a live one', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const spaces = t.get(SpacesService);
      await spaces.delete(org.admin.user, space.id);
      await expectCode(t.get(SpaceAccessService).resolve(org.admin.user, space.id), 'space.not_found');
      expect((await spaces.restore(org.admin.user, space.id)).space.deletedAt).toBeNull();
      await expectCode(spaces.restore(org.admin.user, space.id), 'space.not_deleted');
    });

    it('lets only admins of the space change its settings', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const editor = await addMember(t, org, 'edit');
      await expectCode(t.get(SpacesService).update(editor.user, space.id, { title: 'Mine now' }), 'space.action_forbidden');
    });

    it('duplicates a space next to its source with a marked title', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org, { title: 'Handbook' });
      const spaces = t.get(SpacesService);
      const copy = await spaces.duplicate(org.admin.user, await t.get(SpaceAccessService).resolve(org.admin.user, space.id));
      expect(copy.space.title).toBe('Handbook (copy)');
      expect(copy.space.id).not.toBe(space.id);
    });

    it('refuses a move that names neither parent nor position', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const access = await t.get(SpaceAccessService).resolve(org.admin.user, space.id);
      await expectCode(t.get(SpacesService).move(org.admin.user, access, {}), 'space.move_empty');
    });

    it('transfers a space only into an organization the caller administers, and drops its grants', async () => {
      const org = await createOrganization(t);
      const space = await createSpace(t, org);
      const reader = await addMember(t, org, 'read');
      await t.get(GrantsService).invite({ kind: 'space', id: space.id, organizationId: org.id }, { role: 'edit', users: [reader.user.id] });
      const target = await createOrganization(t);
      const spaces = t.get(SpacesService);
      const current = () => t.get(SpaceAccessService).resolve(org.admin.user, space.id);
      await expectCode(spaces.transfer(org.admin.user, await current(), { organization: org.id }), 'access.transfer_same_organization');
      await expectCode(spaces.transfer(org.admin.user, await current(), { organization: target.id }), 'access.transfer_target_not_found');
      // The source's admin joins the target as an editor: not enough to bring content in.
      const invites = t.get(InvitesService);
      await invites.invite(target.admin.membership, { role: 'edit', emails: [{ email: org.admin.user.email }] });
      const [{ invite }] = (await invites.listMine(org.admin.user, { limit: 10 })).items;
      await invites.accept(org.admin.user, invite.id);
      await expectCode(spaces.transfer(org.admin.user, await current(), { organization: target.id }), 'access.transfer_target_forbidden');
      await t.get(MembersService).updateRole(target.admin.membership, org.admin.user.id, 'admin');
      expect((await spaces.transfer(org.admin.user, await current(), { organization: target.id })).space.organizationId).toBe(target.id);
      await expectCode(t.get(SpaceAccessService).resolve(reader.user, space.id), 'space.not_found');
    });
  });

  describe('collections', () => {
    it('refuses deleting a collection that still holds a space', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      await createSpace(t, org, { parent: collection.id });
      const access = await t.get(CollectionAccessService).resolve(org.admin.user, collection.id);
      await expectCode(t.get(CollectionsService).delete(access), 'collection.not_empty');
    });

    it('refuses moving a collection into itself or into one inside it', async () => {
      const org = await createOrganization(t);
      const outer = await createCollection(t, org);
      const inner = await createCollection(t, org, { parent: outer.id });
      const collections = t.get(CollectionsService);
      const access = await t.get(CollectionAccessService).resolve(org.admin.user, outer.id);
      await expectCode(collections.move(org.admin.user, access, { parent: outer.id }), 'collection.cycle');
      await expectCode(collections.move(org.admin.user, access, { parent: inner.id }), 'collection.cycle');
    });

    it('puts a space in a collection and lists it there', async () => {
      const org = await createOrganization(t);
      const collection = await createCollection(t, org);
      const space = await createSpace(t, org, { parent: collection.id });
      const access = await t.get(CollectionAccessService).resolve(org.admin.user, collection.id);
      const page = await t.get(SpacesService).listInCollection(org.admin.user, access, { limit: 100 });
      expect(page.items.map((item) => item.space.id)).toEqual([space.id]);
    });
  });
});
