import { PermissionGrant } from '../modules/access/permission-grant.entity';
import { Collection } from '../modules/collections/collection.entity';
import { Blob } from '../modules/content/blob.entity';
import { ContentDocument, DocumentSection } from '../modules/content/document.entity';
import { RevisionFile } from '../modules/content/revision-file.entity';
import { RevisionLink } from '../modules/content/revision-link.entity';
import { RevisionPage } from '../modules/content/revision-page.entity';
import { RevisionReusableContent } from '../modules/content/revision-reusable-content.entity';
import { Revision } from '../modules/content/revision.entity';
import { SearchPage } from '../modules/content/search/search-page.entity';
import { ServerSecret } from '../modules/members/server-secret.entity';
import { OrganizationInvite } from '../modules/invites/organization-invite.entity';
import { Membership } from '../modules/organizations/membership.entity';
import { Organization } from '../modules/organizations/organization.entity';
import { SamlProvider } from '../modules/saml/saml-provider.entity';
import { TranslationSettings } from '../modules/translations/translation-settings.entity';
import { Space } from '../modules/spaces/space.entity';
import { TeamMember } from '../modules/teams/team-member.entity';
import { Team } from '../modules/teams/team.entity';
import { ApiToken } from '../modules/tokens/api-token.entity';
import { User } from '../modules/users/user.entity';

/** Every entity, in one list: the schema at a glance, and what `migration:generate` compares against. */
export const ENTITIES = [
  // identity
  User,
  Organization,
  Membership,
  ApiToken,
  // organization administration
  Team,
  TeamMember,
  SamlProvider,
  TranslationSettings,
  ServerSecret,
  // content containers
  Collection,
  Space,
  Revision,
  PermissionGrant,
  // space content
  ContentDocument,
  DocumentSection,
  Blob,
  RevisionPage,
  RevisionFile,
  RevisionReusableContent,
  RevisionLink,
  SearchPage,
  // pending invitations
  OrganizationInvite,
];
