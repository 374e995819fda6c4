import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';

export class MemberSpacesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc', description: 'By creation time of the space' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order: 'asc' | 'desc' = 'desc';
}
