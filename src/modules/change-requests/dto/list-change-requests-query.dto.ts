import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { Optional } from '../../../common/validation/presence';
import { CHANGE_REQUEST_STATUSES, type ChangeRequestStatus } from '../change-request.entity';

export class ListChangeRequestsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: CHANGE_REQUEST_STATUSES, default: 'open' })
  @Optional()
  @IsIn(CHANGE_REQUEST_STATUSES)
  status: ChangeRequestStatus = 'open';

  @ApiPropertyOptional({ description: 'Only change requests this user created or wrote to (user ID)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  contributor?: string;

  @ApiPropertyOptional({ description: 'Only change requests this user created (user ID)' })
  @Optional()
  @IsString()
  @MaxLength(64)
  creator?: string;
}
