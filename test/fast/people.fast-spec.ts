import { InvitesService } from '../../src/modules/invites/invites.service';
import { MembersService } from '../../src/modules/members/members.service';
import { SamlService } from '../../src/modules/saml/saml.service';
import { TeamMembersService } from '../../src/modules/teams/team-members.service';
import { TeamsService } from '../../src/modules/teams/teams.service';
import { TranslationsService } from '../../src/modules/translations/translations.service';
import { UsersService } from '../../src/modules/users/users.service';
import { addMember, createOrganization, createUser, membershipOf, unique } from './support/builders';
import { expectCode } from './support/expect-code';
import { useFastApp } from './support/fast-app';

/** Members, teams, invites, SAML providers and translation settings, through their services. */
describe('the people of an organization', () => {
  const t = useFastApp();

  describe('members', () => {
    it('keeps at least one admin: the last cannot be demoted or leave, one of two can', async () => {
      const org = await createOrganization(t);
      const members = t.get(MembersService);
      await expectCode(members.updateRole(org.admin.membership, org.admin.user.id, 'edit'), 'member.last_admin');
      await expectCode(members.remove(org.admin.membership, org.admin.user.id), 'member.last_admin');
      const second = await addMember(t, org, 'admin');
      await members.remove(second.membership, org.admin.user.id);
      await expectCode(members.get(second.membership, org.admin.user.id), 'member.not_found');
    });

    it('lets only admins change roles or remove others, and keeps guests to their own membership', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const guest = await addMember(t, org, null);
      const members = t.get(MembersService);
      await expectCode(members.updateRole(editor.membership, guest.user.id, 'admin'), 'member.update_forbidden');
      await expectCode(members.remove(editor.membership, guest.user.id), 'member.remove_forbidden');
      await expectCode(() => members.list(guest.membership, { limit: 10 } as never), 'member.list_forbidden');
      await expectCode(members.get(guest.membership, editor.user.id), 'member.view_forbidden');
      expect((await members.get(guest.membership, guest.user.id)).membership.role).toBeNull();
      // A member may leave on their own.
      await members.remove(editor.membership, editor.user.id);
    });
  });

  describe('teams', () => {
    it('lets only admins create teams, and refuses members from outside the organization', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const teams = t.get(TeamsService);
      await expectCode(teams.create(editor.membership, { title: 'Writers' }), 'team.manage_forbidden');
      const stranger = await createUser(t);
      await expectCode(teams.create(org.admin.membership, { title: 'Writers', members: [stranger.id] }), 'team.unknown_members');
      const team = await teams.create(org.admin.membership, { title: 'Writers', members: [editor.user.id] });
      expect(team.members).toBe(1);
    });

    it("lets a team's owner manage its members but not a plain member", async () => {
      const org = await createOrganization(t);
      const [owner, member, other] = [await addMember(t, org, 'edit'), await addMember(t, org, 'edit'), await addMember(t, org, 'read')];
      const team = await t.get(TeamsService).create(org.admin.membership, { title: unique('Team') });
      const teamMembers = t.get(TeamMembersService);
      await teamMembers.set(org.admin.membership, team.team.id, owner.user.id, 'owner');
      await teamMembers.set(org.admin.membership, team.team.id, member.user.id, undefined);
      await teamMembers.set(owner.membership, team.team.id, other.user.id, undefined);
      await expectCode(teamMembers.remove(member.membership, team.team.id, other.user.id), 'team.members_forbidden');
      expect(await teamMembers.remove(owner.membership, team.team.id, other.user.id)).toBe(true);
    });

    it("hides another organization's team", async () => {
      const org = await createOrganization(t);
      const team = await t.get(TeamsService).create(org.admin.membership, { title: unique('Team') });
      const other = await createOrganization(t);
      await expectCode(t.get(TeamsService).get(other.admin.membership, team.team.id), 'team.not_found');
    });
  });

  describe('invites', () => {
    it('adds new users at once, leaves existing users an invitation, skips members and repeats', async () => {
      const org = await createOrganization(t);
      const member = await addMember(t, org, 'read');
      const existing = await createUser(t);
      const fresh = `${unique('new')}@example.com`;
      const result = await t.get(InvitesService).invite(org.admin.membership, {
        role: 'edit',
        emails: [{ email: fresh }, { email: fresh.toUpperCase() }, { email: existing.email }, { email: member.user.email }],
      });
      expect(result.addedUserIds).toHaveLength(1);
      expect(result.pending).toEqual([existing.email]);
      expect(result.alreadyMembers).toEqual([member.user.email]);
      const added = (await t.get(UsersService).findByEmail(fresh))!;
      expect((await membershipOf(t, org.id, added)).role).toBe('edit');
    });

    it('accepts an invitation once, and only by its invitee', async () => {
      const org = await createOrganization(t);
      const existing = await createUser(t);
      const invites = t.get(InvitesService);
      await invites.invite(org.admin.membership, { role: 'comment', emails: [{ email: existing.email }] });
      const [{ invite }] = (await invites.listMine(existing, { limit: 10 })).items;
      const someoneElse = await createUser(t);
      await expectCode(invites.accept(someoneElse, invite.id), 'invite.not_found');
      expect((await invites.accept(existing, invite.id)).membership.role).toBe('comment');
      await expectCode(invites.accept(existing, invite.id), 'invite.not_found');
    });

    it('lets only admins invite', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      await expectCode(t.get(InvitesService).invite(editor.membership, { emails: [{ email: `${unique('x')}@example.com` }] }), 'invite.forbidden');
    });
  });

  describe('SAML providers', () => {
    it('lets only admins manage providers, and refuses a default team of another organization', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const saml = t.get(SamlService);
      await expectCode(saml.create(editor.membership, { label: 'Okta' }), 'saml.manage_forbidden');
      const other = await createOrganization(t);
      const foreignTeam = await t.get(TeamsService).create(other.admin.membership, { title: unique('Team') });
      await expectCode(saml.create(org.admin.membership, { label: 'Okta', defaultTeam: foreignTeam.team.id }), 'saml.unknown_default_team');
      const created = await saml.create(org.admin.membership, { label: 'Okta' });
      await expectCode(saml.get(other.admin.membership, created.provider.id), 'saml.not_found');
    });
  });

  describe('translation settings', () => {
    it('lets only admins manage them, keeps them to their organization, and stores each language once', async () => {
      const org = await createOrganization(t);
      const editor = await addMember(t, org, 'edit');
      const translations = t.get(TranslationsService);
      await expectCode(translations.create(editor.membership, { title: 'French' }), 'translation.manage_forbidden');
      const created = await translations.create(org.admin.membership, { title: 'French', languages: ['fr', 'fr-FR', 'fr'] });
      expect(created.languages).toEqual(['fr', 'fr-FR']);
      const other = await createOrganization(t);
      await expectCode(translations.get(other.admin.membership, created.id), 'translation.not_found');
    });
  });
});
