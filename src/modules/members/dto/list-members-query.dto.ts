import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { MEMBER_ROLES, type MemberRole } from '../../../common/roles';
import { Optional } from '../../../common/validation/presence';

export const MEMBER_SORTS = ['joinedAt', 'lastSeenAt', 'name'] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];
export const LIST_ORDERS = ['asc', 'desc'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

export class ListMembersQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: LIST_ORDERS, default: 'desc' })
  @Optional()
  @IsIn(LIST_ORDERS)
  order: ListOrder = 'desc';

  @ApiPropertyOptional({ enum: [...MEMBER_ROLES, 'guest'], description: 'Only members with this role (`guest`: members without a role)' })
  @Optional()
  @IsIn([...MEMBER_ROLES, 'guest'])
  role?: MemberRole | 'guest';

  @ApiPropertyOptional({ maxLength: 256, description: 'Case-insensitive substring of the display name or e-mail' })
  @Optional()
  @IsString()
  @MaxLength(256)
  search?: string;

  @ApiPropertyOptional({ enum: MEMBER_SORTS, default: 'joinedAt', description: '`lastSeenAt` lists only members who have been seen' })
  @Optional()
  @IsIn(MEMBER_SORTS)
  sort: MemberSort = 'joinedAt';
}
