import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';

export class TeamTitleFilterDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'Only teams whose title contains this, case-insensitively' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  title?: string;
}

export class ListTeamsQueryDto extends TeamTitleFilterDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'A member user ID: only the teams this member can manage' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  owner?: string;
}

/** `GET /members/{userId}/teams`. */
export class ListMemberTeamsQueryDto extends TeamTitleFilterDto {}
