import type { TeamMemberRole } from './team-member.entity';
import { Team } from './team.entity';

/** A team with its live counts and the caller's role in it, as the team queries return it. */
export interface TeamRow {
  team: Team;
  members: number;
  /** Non-deleted spaces with a grant to the team. */
  spaces: number;
  /** The caller's role in the team; null when they are not in it. */
  callerRole: TeamMemberRole | null;
}
