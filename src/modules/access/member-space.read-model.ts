import type { MemberRole } from '../../common/roles';
import type { Space } from '../spaces/space.entity';
import type { SpacePermissionsJson } from './access.policy';

/** A space a member can access, with their level on it (`listSpacesForOrganizationMember`). */
export interface MemberSpace {
  /** The member's effective level on the space. */
  permission: MemberRole;
  space: Space;
  /** The caller's permissions on the space, for its JSON. */
  permissions: SpacePermissionsJson;
}
