import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';
import { MEMBER_ROLES, type MemberRoleOrGuest } from '../../../common/roles';
import { IsEntityId } from '../../access/dto/entity-id';
import { SPACE_EDIT_MODES, SPACE_VISIBILITIES, type SpaceEditMode, type SpaceVisibility } from '../../space-model/space.entity';
import { IsMergeRules } from '../../space-model/dto/is-merge-rules';
import { MaxCodePoints } from '../../space-model/dto/max-code-points';
import type { MergeRulesOfSpace } from '../../space-model/merge-rules';
import { Nullable, Optional, OptionalBody } from '../../../common/validation/presence';

/** Section 8: space title and emoji, at most 50 characters each. */
export const SPACE_TITLE_MAX = 50;
export const SPACE_EMOJI_MAX = 50;

/** The public description does not require this operation's body: no body creates with defaults. */
@OptionalBody()
export class CreateSpaceDto {
  @ApiPropertyOptional({ maxLength: SPACE_TITLE_MAX, default: '' })
  @Optional()
  @IsString()
  @MaxCodePoints(SPACE_TITLE_MAX)
  title?: string;

  @ApiPropertyOptional({ maxLength: SPACE_EMOJI_MAX, description: 'Emoji character or Unicode codepoint', default: '' })
  @Optional()
  @IsString()
  @MaxCodePoints(SPACE_EMOJI_MAX)
  emoji?: string;

  @ApiPropertyOptional({ description: 'Id of the parent collection; absent for the top level' })
  @Optional()
  @IsEntityId()
  parent?: string;

  @ApiPropertyOptional({ enum: SPACE_EDIT_MODES, default: 'live' })
  @Optional()
  @IsIn(SPACE_EDIT_MODES)
  editMode?: SpaceEditMode;

  /** Accepted for clients of the public description: every new space starts empty here (no templates). */
  @ApiPropertyOptional({ enum: [true], description: 'Create a completely empty space (the only kind Quire creates)' })
  @Optional()
  @IsIn([true])
  empty?: true;
}

export class UpdateSpaceDto {
  @ApiPropertyOptional({ enum: SPACE_EDIT_MODES, description: '`locked` refuses every content change until set back to `live`' })
  @Optional()
  @IsIn(SPACE_EDIT_MODES)
  editMode?: SpaceEditMode;

  @ApiPropertyOptional({ maxLength: SPACE_TITLE_MAX })
  @Optional()
  @IsString()
  @MaxCodePoints(SPACE_TITLE_MAX)
  title?: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, nullable: true, description: 'Level every organization member gets on the space; null: none' })
  @Nullable()
  @IsIn(MEMBER_ROLES)
  defaultLevel?: MemberRoleOrGuest;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: SPACE_EMOJI_MAX, description: 'null removes the emoji' })
  @Nullable()
  @IsString()
  @MaxCodePoints(SPACE_EMOJI_MAX)
  emoji?: string | null;

  @ApiPropertyOptional({ enum: SPACE_VISIBILITIES, description: '`in-collection` only for a space inside a collection' })
  @Optional()
  @IsIn(SPACE_VISIBILITIES)
  visibility?: SpaceVisibility;

  @ApiPropertyOptional({
    allOf: [{ $ref: '#/components/schemas/MergeRulesSpaceConfiguration' }],
    description: "What merging a change request needs: `inherit` (the organization's), `none`, or `rules` that must all pass",
  })
  @Optional()
  @IsMergeRules({ inherit: true })
  mergeRules?: MergeRulesOfSpace;
}

export class GetSpaceQueryDto {
  @ApiPropertyOptional({ maxLength: 256, description: 'Share key of a share-link space, to resolve its published URL' })
  @Optional()
  @Matches(/^[\w-]{1,256}$/, { message: 'must be 1 to 256 letters, digits, _ or -' })
  shareKey?: string;
}

export class TransferSpaceDto {
  @ApiProperty({ description: 'Id of the target organization; the caller must be an admin there and in the current one' })
  @IsEntityId()
  organization: string;

  @ApiPropertyOptional({ description: 'Id of a collection of the target organization to put the space in; absent for the top level' })
  @Optional()
  @IsEntityId()
  collection?: string;
}
