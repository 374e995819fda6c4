import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';

export class TeamTitleFilterDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'Only teams whose title contains this, case-insensitively' })
  @Optional()
  @IsString()
  @MaxLength(256)
  title?: string;
}

export class ListTeamsQueryDto extends TeamTitleFilterDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'A member user ID: only the teams this member can manage' })
  @Optional()
  @IsString()
  @MaxLength(256)
  owner?: string;
}

/** `GET /members/{userId}/teams`. */
export class ListMemberTeamsQueryDto extends TeamTitleFilterDto {}
