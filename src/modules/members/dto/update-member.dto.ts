import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { Nullable } from '../../../common/validation/presence';

export class UpdateMemberDto {
  @ApiProperty({ enum: MEMBER_ROLES, nullable: true, description: 'New role; null makes the member a guest' })
  @Nullable({ required: true })
  @IsIn(MEMBER_ROLES)
  role: MemberRoleOrGuest;
}
