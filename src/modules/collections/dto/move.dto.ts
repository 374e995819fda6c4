import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, ValidateIf, ValidateNested } from 'class-validator';
import { IsEntityId } from '../../access/dto/entity-id';
import { Nullable, Optional } from '../../../common/validation/presence';

/** `SpacePointer` or `CollectionPointer`: a sibling to place an item next to. */
export class ContentPointerDto {
  @ApiProperty({ enum: ['space', 'collection'] })
  @IsIn(['space', 'collection'])
  type: 'space' | 'collection';

  @ApiPropertyOptional({ description: 'Id of the space, when type is space' })
  @ValidateIf((pointer: ContentPointerDto) => pointer.type === 'space')
  @IsEntityId()
  space?: string;

  @ApiPropertyOptional({ description: 'Id of the collection, when type is collection' })
  @ValidateIf((pointer: ContentPointerDto) => pointer.type === 'collection')
  @IsEntityId()
  collection?: string;
}

/** `ContentPosition`: one of `before` or `after`. */
export class ContentPositionDto {
  @ApiPropertyOptional({ type: ContentPointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => ContentPointerDto)
  before?: ContentPointerDto;

  @ApiPropertyOptional({ type: ContentPointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => ContentPointerDto)
  after?: ContentPointerDto;
}

/** Body of `moveSpace` and `moveCollection`: a new parent (null: top level), a place among the siblings, or both. */
export class MoveDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Target collection; null moves to the top level of the organization' })
  @Nullable()
  @IsEntityId()
  parent?: string | null;

  @ApiPropertyOptional({ type: ContentPositionDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => ContentPositionDto)
  position?: ContentPositionDto;
}

/** Body of `transferCollection` (and of space transfer, which adds `collection`). */
export class TransferDto {
  @ApiProperty({ description: 'Id of the target organization; the caller must be an admin there and in the current one' })
  @IsEntityId()
  organization: string;
}
