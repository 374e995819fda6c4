import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { IsEntityId } from '../../access/dto/entity-id';
import { MaxCodePoints } from '../../space-model/dto/max-code-points';
import { Nullable, Optional, OptionalBody } from '../../../common/validation/presence';

export const COLLECTION_TITLE_MAX = 50;
export const COLLECTION_DESCRIPTION_MAX = 100;

/** The public description does not require this operation's body: no body creates with defaults. */
@OptionalBody()
export class CreateCollectionDto {
  @ApiPropertyOptional({ maxLength: COLLECTION_TITLE_MAX, default: '' })
  @Optional()
  @IsString()
  @MaxCodePoints(COLLECTION_TITLE_MAX)
  title?: string;

  @ApiPropertyOptional({ description: 'Id of the parent collection; absent for the top level' })
  @Optional()
  @IsEntityId()
  parent?: string;
}

export class UpdateCollectionDto {
  @ApiPropertyOptional({ maxLength: COLLECTION_TITLE_MAX })
  @Optional()
  @IsString()
  @MaxCodePoints(COLLECTION_TITLE_MAX)
  title?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: COLLECTION_DESCRIPTION_MAX, description: 'null removes it' })
  @Nullable()
  @IsString()
  @MaxCodePoints(COLLECTION_DESCRIPTION_MAX)
  description?: string | null;

  @ApiPropertyOptional({
    enum: MEMBER_ROLES,
    nullable: true,
    description: 'Level every organization member gets on the collection and what it holds; null: none',
  })
  @Nullable()
  @IsIn(MEMBER_ROLES)
  defaultLevel?: MemberRoleOrGuest;
}

const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

export class ListCollectionsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ type: Boolean, default: true, description: 'true lists every collection, false the top level only' })
  @Optional()
  @Transform(toBoolean)
  @IsBoolean()
  nested: boolean = true;
}
