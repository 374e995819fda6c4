import { Membership } from '../organizations/membership.entity';
import { User } from '../users/user.entity';

/** A membership with its user and live counts, as the member queries return it. */
export interface MemberRow {
  membership: Membership;
  user: User;
  /** Non-deleted spaces the member holds a grant on, directly or through a team. */
  spaces: number;
  teams: number;
  /** Sites of the organization showing one of those spaces. */
  sites: number;
}
