import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Nullable, Optional, OptionalBody } from '../../../common/validation/presence';
import { IsEntityId } from '../../access/dto/entity-id';
import { QueryBoolean } from '../../content/dto/query-booleans';

/** Section 8 and the public schemas: paths 1–100, conditions 1–1024, section titles 2–128, group titles 1–100, icons up to 50. */
export const PATH = { min: 1, max: 100 };
export const CONDITION = { min: 1, max: 1024 };
const PATH_PATTERN = /^[\w.~-]+$/;
const ICON_PATTERN = /^[a-z0-9][a-z0-9-]*$/;

export class ListSiteSpacesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: 256 })
  @Optional()
  @Matches(/^[\w-]{1,256}$/, { message: 'must be 1 to 256 letters, digits, _ or -' })
  shareKey?: string;

  @ApiPropertyOptional({ description: 'true: only the default site space; false: only the others' })
  @Optional()
  @QueryBoolean()
  @IsBoolean()
  default?: boolean;
}

export class ListSectionsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: 256 })
  @Optional()
  @Matches(/^[\w-]{1,256}$/, { message: 'must be 1 to 256 letters, digits, _ or -' })
  shareKey?: string;
}

export class AddSiteSpaceDto {
  @ApiProperty()
  @IsEntityId()
  spaceId: string;

  @ApiPropertyOptional({ description: 'Section to add it to; absent: the default section, or the root without sections' })
  @Optional()
  @IsEntityId()
  sectionId?: string;
}

export class UpdateSiteSpaceDto {
  @ApiPropertyOptional({ minLength: PATH.min, maxLength: PATH.max })
  @Optional()
  @IsString()
  @Length(PATH.min, PATH.max)
  @Matches(PATH_PATTERN, { message: 'must be letters, digits, -, _, . or ~' })
  path?: string;

  @ApiPropertyOptional({ minLength: CONDITION.min, maxLength: CONDITION.max, nullable: true, description: 'null removes the condition' })
  @Nullable()
  @IsString()
  @Length(CONDITION.min, CONDITION.max)
  condition?: string | null;

  @ApiPropertyOptional()
  @Optional()
  @IsEntityId()
  spaceId?: string;
}

export class SiteSpacePointerDto {
  @ApiProperty({ enum: ['site-space'] })
  @IsIn(['site-space'])
  type: 'site-space';

  @ApiProperty()
  @IsEntityId()
  siteSpace: string;
}

export class SiteSpacePositionDto {
  @ApiPropertyOptional({ type: SiteSpacePointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SiteSpacePointerDto)
  before?: SiteSpacePointerDto;

  @ApiPropertyOptional({ type: SiteSpacePointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SiteSpacePointerDto)
  after?: SiteSpacePointerDto;
}

@OptionalBody()
export class MoveSiteSpaceDto {
  @ApiPropertyOptional({ type: SiteSpacePositionDto, description: 'Absent: the end of its level' })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SiteSpacePositionDto)
  position?: SiteSpacePositionDto;
}

@OptionalBody()
export class DuplicateSiteSpaceDto {
  @ApiPropertyOptional({ enum: [false], description: 'Quire has no draft site spaces' })
  @Optional()
  @IsIn([false])
  draft?: false;
}

export class AddSectionDto {
  @ApiProperty({ description: 'Space added to the section as its first site space' })
  @IsEntityId()
  spaceId: string;

  @ApiPropertyOptional({ minLength: 2, maxLength: 128, nullable: true, description: 'Absent or null: the space title' })
  @Nullable()
  @IsString()
  @Length(2, 128)
  title?: string | null;

  @ApiPropertyOptional({ maxLength: 50, nullable: true })
  @Nullable()
  @IsString()
  @MaxLength(50)
  @Matches(ICON_PATTERN, { message: 'must be an icon name such as gear' })
  icon?: string | null;

  @ApiPropertyOptional({ description: 'Group to create the section in' })
  @Optional()
  @IsEntityId()
  siteSectionGroupId?: string;
}

export class UpdateSectionDto {
  @ApiPropertyOptional({ minLength: 2, maxLength: 128 })
  @Optional()
  @IsString()
  @Length(2, 128)
  title?: string;

  @ApiPropertyOptional({ minLength: PATH.min, maxLength: PATH.max })
  @Optional()
  @IsString()
  @Length(PATH.min, PATH.max)
  @Matches(PATH_PATTERN, { message: 'must be letters, digits, -, _, . or ~' })
  path?: string;

  @ApiPropertyOptional()
  @Optional()
  @IsEntityId()
  defaultSiteSpace?: string;

  @ApiPropertyOptional({ minLength: CONDITION.min, maxLength: CONDITION.max, nullable: true })
  @Nullable()
  @IsString()
  @Length(CONDITION.min, CONDITION.max)
  condition?: string | null;

  @ApiPropertyOptional({ maxLength: 50, nullable: true })
  @Nullable()
  @IsString()
  @MaxLength(50)
  @Matches(ICON_PATTERN, { message: 'must be an icon name such as gear' })
  icon?: string | null;

  @ApiPropertyOptional({ maxLength: 256, nullable: true })
  @Nullable()
  @IsString()
  @MaxLength(256)
  description?: string | null;
}

export class SectionPointerDto {
  @ApiProperty({ enum: ['site-section'] })
  @IsIn(['site-section'])
  type: 'site-section';

  @ApiProperty()
  @IsEntityId()
  siteSection: string;
}

export class SectionPositionDto {
  @ApiPropertyOptional({ type: SectionPointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SectionPointerDto)
  before?: SectionPointerDto;

  @ApiPropertyOptional({ type: SectionPointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SectionPointerDto)
  after?: SectionPointerDto;
}

@OptionalBody()
export class MoveSectionDto {
  @ApiPropertyOptional({ type: SectionPositionDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SectionPositionDto)
  position?: SectionPositionDto;
}

export class CreateSectionGroupDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  title: string;

  @ApiPropertyOptional({ maxLength: 50, nullable: true })
  @Nullable()
  @IsString()
  @MaxLength(50)
  @Matches(ICON_PATTERN, { message: 'must be an icon name such as gear' })
  icon?: string | null;

  @ApiPropertyOptional({ type: [String], description: 'Sections to put in the group, in order' })
  @Optional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsEntityId({ each: true })
  sections?: string[];
}

export class UpdateSectionGroupDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  title?: string;

  @ApiPropertyOptional({ maxLength: 50, nullable: true })
  @Nullable()
  @IsString()
  @MaxLength(50)
  @Matches(ICON_PATTERN, { message: 'must be an icon name such as gear' })
  icon?: string | null;
}

export class AddSectionToGroupDto {
  @ApiProperty()
  @IsEntityId()
  sectionId: string;
}

export class StructurePointerDto {
  @ApiProperty({ enum: ['site-section', 'site-section-group'] })
  @IsIn(['site-section', 'site-section-group'])
  type: 'site-section' | 'site-section-group';

  @ApiProperty()
  @IsEntityId()
  id: string;
}

export class GroupPositionDto {
  @ApiPropertyOptional({ type: StructurePointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => StructurePointerDto)
  before?: StructurePointerDto;

  @ApiPropertyOptional({ type: StructurePointerDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => StructurePointerDto)
  after?: StructurePointerDto;
}

@OptionalBody()
export class MoveSectionGroupDto {
  @ApiPropertyOptional({ type: GroupPositionDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => GroupPositionDto)
  position?: GroupPositionDto;
}

export const STRUCTURE_ITEM_TYPES = ['site-space', 'site-section', 'site-section-group'] as const;
export type StructureItemType = (typeof STRUCTURE_ITEM_TYPES)[number];

export class StructureItemDto {
  @ApiProperty({ enum: STRUCTURE_ITEM_TYPES })
  @IsIn(STRUCTURE_ITEM_TYPES)
  type: StructureItemType;

  @ApiProperty()
  @IsEntityId()
  id: string;
}

export class StructurePositionDto {
  @ApiPropertyOptional({ type: StructureItemDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => StructureItemDto)
  before?: StructureItemDto;

  @ApiPropertyOptional({ type: StructureItemDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => StructureItemDto)
  after?: StructureItemDto;
}

export class SortStructureDto {
  @ApiProperty({ type: StructureItemDto })
  @IsObject()
  @ValidateNested()
  @Type(() => StructureItemDto)
  item: StructureItemDto;

  @ApiProperty({ type: StructurePositionDto, description: 'Empty: the end of its level' })
  @IsObject()
  @ValidateNested()
  @Type(() => StructurePositionDto)
  position: StructurePositionDto;
}
