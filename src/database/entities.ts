import { Membership } from '../modules/organizations/membership.entity';
import { Organization } from '../modules/organizations/organization.entity';
import { ApiToken } from '../modules/tokens/api-token.entity';
import { User } from '../modules/users/user.entity';

/** Every entity, in one list: the schema at a glance, and what `migration:generate` compares against. */
export const ENTITIES = [User, Organization, Membership, ApiToken];
