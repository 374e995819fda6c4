import { ApiProperty } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';

export class UpdateMemberDto {
  // Required, but null is a value (guest): only null skips the enum check, a missing role fails it.
  @ApiProperty({ enum: MEMBER_ROLES, nullable: true, description: 'New role; null makes the member a guest' })
  @ValidateIf((dto: UpdateMemberDto) => dto.role !== null)
  @IsIn(MEMBER_ROLES)
  role: MemberRoleOrGuest;
}
