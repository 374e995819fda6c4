import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsFQDN, IsString, Length, Matches } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

export class CreateOrganizationDto {
  @ApiProperty({ minLength: 2, maxLength: 255, description: 'Name of the organization' })
  @IsString()
  @Length(2, 255)
  @Matches(/^\S.*\S$/s, { message: 'must not start or end with white space' })
  title: string;

  @ApiPropertyOptional({ type: [String], description: 'E-mail domains whose users may join' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true })
  emailDomains?: string[];
}
