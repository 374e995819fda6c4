import { Column, Entity, PrimaryColumn } from 'typeorm';

export const TEAM_MEMBER_ROLES = ['owner', 'member'] as const;
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];

/** A user's place in a team; always also a member of the team's organization. */
@Entity('team_members')
export class TeamMember {
  @PrimaryColumn('text')
  teamId: string;

  @PrimaryColumn('text')
  userId: string;

  @Column('text')
  organizationId: string;

  @Column('text')
  role: TeamMemberRole;

  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  addedAt: Date;
}
