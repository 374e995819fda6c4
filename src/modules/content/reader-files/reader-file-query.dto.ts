import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

/** The signed part of a reader file URL. A wrong signature is a 403 from the check, not a 400 here. */
export class ReaderFileQueryDto {
  @ApiProperty({ description: 'When the URL expires: Unix time in seconds' })
  @IsString()
  @Matches(/^\d{1,12}$/, { message: 'expires: must be a whole number of seconds' })
  expires: string;

  @ApiProperty({ description: 'HMAC-SHA256 of revision, file and expiry, base64url' })
  @IsString()
  @MaxLength(128)
  signature: string;
}
