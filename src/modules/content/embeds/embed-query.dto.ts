import { ApiProperty } from '@nestjs/swagger';
import { IsUrl, MaxLength } from 'class-validator';

export class EmbedQueryDto {
  @ApiProperty({ description: 'The http(s) URL to describe', maxLength: 2048 })
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'url: must be an http or https URL' })
  url: string;
}
