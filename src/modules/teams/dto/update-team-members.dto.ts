import { ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsString, MaxLength, registerDecorator, ValidationArguments } from 'class-validator';
import { TEAM_MEMBER_ROLES, type TeamMemberRole } from '../team-member.entity';
import { MAX_USERS_PER_REQUEST } from './create-team.dto';
import { Optional, OptionalBody } from '../../../common/validation/presence';

/** The first entry of a `memberships` map that is not `userId → { role: owner | member }`, or undefined. */
function badMembership(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return '(the map itself)';
  const entries = Object.entries(value);
  if (entries.length > MAX_USERS_PER_REQUEST) return `(more than ${MAX_USERS_PER_REQUEST} entries)`;
  const bad = entries.find(([userId, membership]) => {
    if (userId.length === 0 || userId.length > 320) return true;
    if (!membership || typeof membership !== 'object' || Array.isArray(membership)) return true;
    const keys = Object.keys(membership);
    return keys.length !== 1 || keys[0] !== 'role' || !TEAM_MEMBER_ROLES.includes((membership as { role: TeamMemberRole }).role);
  });
  return bad ? JSON.stringify(bad[0]) : undefined;
}

/** A map from user ID to `{ role }`: class-validator has no rule for maps with arbitrary keys. */
function IsTeamMembershipMap() {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isTeamMembershipMap',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => badMembership(value) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          `must map user IDs to { "role": "owner" | "member" }; invalid entry ${badMembership(args.value) ?? ''}`.trim(),
      },
    });
}

const userList: ApiPropertyOptions = { type: [String], maxItems: MAX_USERS_PER_REQUEST, description: 'User IDs or e-mail addresses of organization members' };

export class UpdateTeamMembersDto {
  @ApiPropertyOptional(userList)
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_USERS_PER_REQUEST)
  @IsString({ each: true })
  @MaxLength(320, { each: true })
  add?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', properties: { role: { type: 'string', enum: [...TEAM_MEMBER_ROLES] } }, required: ['role'] },
    description: 'Role per user ID; users not yet in the team are added',
  })
  @Optional()
  @IsTeamMembershipMap()
  memberships?: Record<string, { role: TeamMemberRole }>;

  @ApiPropertyOptional({ ...userList, description: 'User IDs or e-mail addresses of organization members; removal wins over add' } as ApiPropertyOptions)
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_USERS_PER_REQUEST)
  @IsString({ each: true })
  @MaxLength(320, { each: true })
  remove?: string[];
}

/** The public description does not require this operation's body: no body keeps or defaults the role. */
@OptionalBody()
export class SetTeamMemberDto {
  @ApiPropertyOptional({ enum: TEAM_MEMBER_ROLES, description: 'Role in the team; a new member defaults to `member`, an existing one keeps theirs' })
  @Optional()
  @IsIn(TEAM_MEMBER_ROLES)
  role?: TeamMemberRole;
}
