import { PermissionGrant } from '../modules/access/permission-grant.entity';
import { Collection } from '../modules/collections/collection.entity';
import { Revision } from '../modules/content/revision.entity';
import { Membership } from '../modules/organizations/membership.entity';
import { Organization } from '../modules/organizations/organization.entity';
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
  // content containers
  Collection,
  Space,
  Revision,
  PermissionGrant,
];
