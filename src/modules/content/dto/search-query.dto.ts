import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto';

export class SearchQueryDto extends ListQueryDto {
  @ApiProperty({ maxLength: 512, description: 'Words to find (web search syntax: "quoted phrase", -excluded, or)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  query: string;
}
