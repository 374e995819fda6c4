import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsUrl, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

/** `PUT /v1/integrations/{name}/dev`. */
export class DevModeDto {
  @ApiProperty({ description: 'URL of the tunnel that integration events are dispatched to' })
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'tunnelUrl: must be an http or https URL' })
  @MaxLength(2048)
  tunnelUrl: string;

  @ApiPropertyOptional({ default: false, description: 'true forwards requests from every organization, not only the owner' })
  @Optional()
  @IsBoolean()
  all?: boolean;
}
