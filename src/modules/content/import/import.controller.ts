import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { User } from '../../users/user.entity';
import { IMPORT_RESULT_SCHEMA } from '../content.schemas';
import { ImportContentDto } from '../dto/import-content.dto';
import { ImportResult, WebsiteImportService } from './website-import.service';

@ApiTags('content')
@ApiBearerAuth()
@Controller('v1/spaces/:spaceId/content/import')
export class ImportController {
  constructor(private readonly imports: WebsiteImportService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'importContentInSpace',
    summary: 'Import a website into the space: its pages are added in a new active revision (needs edit; refused while the space is locked)',
  })
  @ApiCreatedResponse({ schema: IMPORT_RESULT_SCHEMA })
  create(@CurrentUser() user: User, @Param('spaceId') spaceId: string, @Body() dto: ImportContentDto): Promise<ImportResult> {
    return this.imports.import(user, spaceId, dto);
  }
}
