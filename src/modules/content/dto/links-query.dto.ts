import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { LINK_STATUSES, type LinkStatus } from '../revision-link.entity';
import { Optional } from '../../../common/validation/presence';

export class LinksQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: LINK_STATUSES, description: 'Only links with this status' })
  @Optional()
  @IsIn(LINK_STATUSES)
  status?: LinkStatus;
}
