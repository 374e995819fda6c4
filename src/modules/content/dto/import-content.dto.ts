import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, IsUrl, MaxLength } from 'class-validator';

export const IMPORT_SOURCES = ['website'] as const;

export class ImportContentDto {
  @ApiProperty({ format: 'uri', maxLength: 2048, description: 'Page to start from: the import stays on its origin, under its path' })
  @IsString()
  @MaxLength(2048)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'], require_tld: false, allow_underscores: true }, { message: 'must be an http or https URL' })
  url: string;

  @ApiProperty({ enum: IMPORT_SOURCES })
  @IsIn(IMPORT_SOURCES)
  source: (typeof IMPORT_SOURCES)[number];
}
