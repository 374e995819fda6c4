import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { LINK_STATUSES, type LinkStatus } from '../revision-link.entity';

export class LinksQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: LINK_STATUSES, description: 'Only links with this status' })
  @IsOptional()
  @IsIn(LINK_STATUSES)
  status?: LinkStatus;
}
