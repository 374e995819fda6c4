import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsFQDN, IsIn, IsString, IsUrl, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { Nullable, Optional } from '../../../common/validation/presence';
import { IsMergeRules } from '../../space-model/dto/is-merge-rules';
import type { MergeRulesStandalone } from '../../space-model/merge-rules';

/** The public `SitePointer`: the organization's default content is one of its sites. */
export class SitePointerDto {
  @ApiProperty({ enum: ['site'] })
  @IsIn(['site'])
  type: 'site';

  @ApiProperty()
  @IsString()
  @Length(1, 64)
  site: string;
}

export class UpdateOrganizationDto {
  @ApiPropertyOptional({ minLength: 2, maxLength: 255 })
  @Optional()
  @IsString()
  @Length(2, 255)
  @Matches(/^\S.*\S$/s, { message: 'must not start or end with white space' })
  title?: string;

  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true })
  emailDomains?: string[];

  @ApiPropertyOptional({ minLength: 3, maxLength: 32, pattern: '^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$' })
  @Optional()
  @Matches(/^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/, { message: 'must be 3 to 32 lowercase letters, digits or dashes' })
  hostname?: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, nullable: true, description: 'Role of new members; null makes them guests' })
  @Nullable()
  @IsIn(MEMBER_ROLES)
  defaultRole?: MemberRoleOrGuest;

  @ApiPropertyOptional({ type: SitePointerDto, nullable: true, description: 'The default site of the organization; null removes it' })
  @Nullable()
  @ValidateNested()
  @Type(() => SitePointerDto)
  defaultContent?: SitePointerDto | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'uri', maxLength: 2048 })
  @Nullable()
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2048)
  logo?: string | null;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  sso?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  ai?: boolean;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  inviteLinks?: boolean;

  @ApiPropertyOptional({
    allOf: [{ $ref: '#/components/schemas/MergeRulesStandaloneConfiguration' }],
    description: "What merging a change request needs in the organization's spaces that inherit: `none`, or `rules` that must all pass",
  })
  @Optional()
  @IsMergeRules({ inherit: false })
  mergeRules?: MergeRulesStandalone;
}
