import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsFQDN, IsOptional, IsString, Length, Matches } from 'class-validator';

export class CreateOrganizationDto {
  @ApiProperty({ minLength: 2, maxLength: 255, description: 'Name of the organization' })
  @IsString()
  @Length(2, 255)
  @Matches(/^\S.*\S$/s, { message: 'must not start or end with white space' })
  title: string;

  @ApiPropertyOptional({ type: [String], description: 'E-mail domains whose users may join' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsFQDN({}, { each: true })
  emailDomains?: string[];
}
