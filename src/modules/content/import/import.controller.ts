import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { User } from '../../users/user.entity';
import { IMPORT_RESULT_SCHEMA } from '../content.schemas';
import { ImportContentDto } from '../dto/import-content.dto';
import { ImportResult, WebsiteImportService } from './website-import.service';
import { SpaceAccess } from '../../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { CONTENT_POLICY } from '../content.policy';

@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/content/import')
@SpaceAction(CONTENT_POLICY.import)
export class ImportController {
  constructor(private readonly imports: WebsiteImportService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'importContentInSpace',
    summary: 'Import a website into the space: its pages are added in a new active revision (needs edit; refused while the space is locked)',
  })
  @ApiCreatedResponse({ schema: IMPORT_RESULT_SCHEMA })
  create(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: ImportContentDto): Promise<ImportResult> {
    return this.imports.import(user, access, dto);
  }
}
