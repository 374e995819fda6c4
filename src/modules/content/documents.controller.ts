import { RawJson } from '../../common/http/raw-json';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { publicSchema } from '../../common/openapi/public-schema';
import { SpaceAccess } from '../access/space-access.service';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { CONTENT_POLICY } from './content.policy';
import { ContentService } from './content.service';
import { DocumentByIdQueryDto } from './dto/content-query.dto';

/**
 * Page bodies by their document id (`RevisionPageDocument.documentId`). The public operation is for
 * users and OAuth apps only (its `security`), hence no script or site token.
 */
@ApiTags('content')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/documents')
@SpaceAction(CONTENT_POLICY.read)
export class DocumentsController {
  constructor(private readonly content: ContentService) {}

  @Get(':documentId')
  @ApiOperation({ operationId: 'getDocumentById', summary: 'A body used by a revision of the space, by its document id, as a JSON document' })
  @ApiOkResponse({ schema: publicSchema('JSONDocument') })
  document(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('documentId') documentId: string,
    @Query() _query: DocumentByIdQueryDto,
  ): Promise<Record<string, unknown> | RawJson> {
    return this.content.documentById(access, documentId);
  }
}
