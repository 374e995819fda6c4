import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';

export class MemberSpacesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc', description: 'By creation time of the space' })
  @Optional()
  @IsIn(['asc', 'desc'])
  order: 'asc' | 'desc' = 'desc';
}
