import type { TeamMemberRole } from './team-member.entity';

/** The body of `PUT /teams/{teamId}/members`: users are named by user ID or e-mail address. */
export interface TeamMemberChangeRequest {
  add?: string[];
  memberships?: Record<string, { role: TeamMemberRole }>;
  remove?: string[];
}

/** What to write, in user ids. */
export interface TeamMemberChanges {
  /** Added as plain members; users already in the team keep their role. */
  add: string[];
  /** Given this role, added first when not in the team. */
  setRole: { userId: string; role: TeamMemberRole }[];
  remove: string[];
}

/** Every user the request names, once, as written. */
export function identifiersOf(request: TeamMemberChangeRequest): string[] {
  return [...new Set([...(request.add ?? []), ...Object.keys(request.memberships ?? {}), ...(request.remove ?? [])])];
}

/**
 * Turns a request into changes, given how each identifier resolves to a user id (every identifier
 * must resolve: unknown users are refused before this). A user named in `remove` ends up removed,
 * whatever else the request says about them; an explicit role wins over a plain add.
 */
export function planTeamMemberChanges(request: TeamMemberChangeRequest, resolve: (identifier: string) => string): TeamMemberChanges {
  const remove = new Set((request.remove ?? []).map(resolve));
  const roles = new Map<string, TeamMemberRole>();
  for (const [identifier, { role }] of Object.entries(request.memberships ?? {})) {
    const userId = resolve(identifier);
    if (!remove.has(userId)) roles.set(userId, role);
  }
  const add = new Set((request.add ?? []).map(resolve).filter((userId) => !remove.has(userId) && !roles.has(userId)));
  return { add: [...add], setRole: [...roles].map(([userId, role]) => ({ userId, role })), remove: [...remove] };
}
