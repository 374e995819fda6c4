import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Length, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

/** `POST …/render` (public `RenderIntegrationUI`); `GET …/render?request=` carries the same JSON, LZ-compressed. */
export class RenderIntegrationDto {
  @ApiProperty({ description: 'Component to render' })
  @IsString()
  @Length(1, 100)
  componentId: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  props: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Current local state of the UI' })
  @Optional()
  @IsObject()
  state?: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Where it renders: { type, spaceId | organizationId | siteId, … }' })
  @IsObject()
  context: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'An action (onPress) to apply before rendering' })
  @Optional()
  @IsObject()
  action?: Record<string, unknown>;
}

export class RenderQueryDto {
  @ApiProperty({ description: 'The render request as JSON compressed with lz-string (compressToEncodedURIComponent)' })
  @IsString()
  @MaxLength(64 * 1024)
  request: string;
}
