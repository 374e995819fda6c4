import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsFQDN, IsIn, IsOptional, IsString, IsUrl, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';

export class UpdateOrganizationDto {
  @ApiPropertyOptional({ minLength: 2, maxLength: 255 })
  @IsOptional()
  @IsString()
  @Length(2, 255)
  @Matches(/^\S.*\S$/s, { message: 'must not start or end with white space' })
  title?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true })
  emailDomains?: string[];

  @ApiPropertyOptional({ minLength: 3, maxLength: 32, pattern: '^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$' })
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/, { message: 'must be 3 to 32 lowercase letters, digits or dashes' })
  hostname?: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, nullable: true, description: 'Role of new members; null makes them guests' })
  @ValidateIf((dto: UpdateOrganizationDto) => dto.defaultRole !== null && dto.defaultRole !== undefined)
  @IsIn(MEMBER_ROLES)
  defaultRole?: MemberRoleOrGuest;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'uri', maxLength: 2048 })
  @ValidateIf((dto: UpdateOrganizationDto) => dto.logo !== null && dto.logo !== undefined)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2048)
  logo?: string | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  sso?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  ai?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  inviteLinks?: boolean;
}
