import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Length, Matches, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

export const TEAM_TITLE = { min: 1, max: 64 };
/** The most users one request may name in a list (team members to add, remove, or start with). */
export const MAX_USERS_PER_REQUEST = 1000;

export class TeamTitleDto {
  @ApiProperty({ minLength: TEAM_TITLE.min, maxLength: TEAM_TITLE.max })
  @IsString()
  @Length(TEAM_TITLE.min, TEAM_TITLE.max)
  @Matches(/\S/, { message: 'must not be blank' })
  title: string;
}

export class CreateTeamDto extends TeamTitleDto {
  @ApiPropertyOptional({ type: [String], maxItems: MAX_USERS_PER_REQUEST, description: 'Initial members: user IDs (or e-mails) of organization members' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_USERS_PER_REQUEST)
  @IsString({ each: true })
  @MaxLength(320, { each: true })
  members?: string[];
}

/** `PATCH /teams/{teamId}`: the title is the only field, and it is required. */
export class UpdateTeamDto extends TeamTitleDto {}
