import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../../common/validation/presence';

/** `getComputedDocument`: a computed source (`ComputedContentSourceDocument`) and the seed of its ids. */
export class ComputedDocumentDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The computed source: `type`, `props`, `dependencies`' })
  @IsObject()
  source: Record<string, unknown>;

  @ApiProperty({ maxLength: 200, description: 'Seed to use for the generation of IDs' })
  @IsString()
  @MaxLength(200)
  seed: string;
}

export class ComputedDocumentQueryDto {
  @ApiPropertyOptional({ enum: ['current', 'next'], description: 'Version of the schema used for the document (one version here)' })
  @Optional()
  @IsIn(['current', 'next'])
  schema?: 'current' | 'next';
}
