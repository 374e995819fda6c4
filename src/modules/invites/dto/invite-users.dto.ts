import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsIn, MaxLength, ValidateNested } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { Nullable, Optional } from '../../../common/validation/presence';

/** The most people one invite request may name. */
export const MAX_INVITES_PER_REQUEST = 100;

export class InviteeDto {
  @ApiProperty({ format: 'email', maxLength: 320 })
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, nullable: true, description: 'Role of this person; null makes them a guest' })
  @Nullable()
  @IsIn(MEMBER_ROLES)
  role?: MemberRoleOrGuest;
}

/** `emails` items are e-mail strings or `{ email, role }`: both become InviteeDto, so one set of rules checks them. */
const toInvitees = ({ value }: { value: unknown }) =>
  Array.isArray(value)
    ? value.map((item: unknown) => {
        if (typeof item === 'string') return plainToInstance(InviteeDto, { email: item });
        if (item && typeof item === 'object' && !Array.isArray(item)) return plainToInstance(InviteeDto, item);
        return item;
      })
    : value;

export class InviteUsersDto {
  @ApiProperty({
    type: 'array',
    minItems: 1,
    maxItems: MAX_INVITES_PER_REQUEST,
    items: { oneOf: [{ type: 'string', format: 'email' }, { $ref: getSchemaPath(InviteeDto) }] },
  })
  @Transform(toInvitees)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INVITES_PER_REQUEST)
  @ValidateNested({ each: true })
  emails: InviteeDto[];

  @ApiPropertyOptional({ enum: MEMBER_ROLES, nullable: true, description: "Role of invitees without one (default: the organization's default role)" })
  @Nullable()
  @IsIn(MEMBER_ROLES)
  role?: MemberRoleOrGuest;

  @ApiPropertyOptional({ description: 'Make the new members SSO members' })
  @Optional()
  @IsBoolean()
  sso?: boolean;
}
