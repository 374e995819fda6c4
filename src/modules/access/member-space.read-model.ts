import type { MemberRole } from '../../common/roles';
import type { Space } from '../space-model/space.entity';
import type { SpacePermissionsJson } from '../space-model/space-permissions';

/** A space a member can access, with their level on it (`listSpacesForOrganizationMember`). */
export interface MemberSpace {
  /** The member's effective level on the space. */
  permission: MemberRole;
  space: Space;
  /** The caller's permissions on the space, for its JSON. */
  permissions: SpacePermissionsJson;
}
