import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn } from 'class-validator';
import { MEMBER_ROLES, type MemberRole } from '../../../common/roles';
import { IsEntityId } from './entity-id';
import { Optional } from '../../../common/validation/presence';

/** Most users or teams one invitation names; more is a bulk import, not an invitation. */
export const MAX_INVITEES = 100;

/** `InviteUsersAndTeams`: a role for users, teams or both (at least one of the two lists). */
export class InviteDto {
  @ApiProperty({ enum: MEMBER_ROLES, description: 'Role granted on the space or collection' })
  @IsIn(MEMBER_ROLES)
  role: MemberRole;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_INVITEES, description: 'Ids of members or guests of the organization' })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INVITEES)
  @IsEntityId({ each: true })
  users?: string[];

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_INVITEES, description: 'Ids of teams of the organization' })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INVITEES)
  @IsEntityId({ each: true })
  teams?: string[];
}

export class UpdateGrantDto {
  @ApiProperty({ enum: MEMBER_ROLES, description: 'New role of the grant' })
  @IsIn(MEMBER_ROLES)
  role: MemberRole;
}
