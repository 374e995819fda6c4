import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens, SiteTokenContent } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { mapPage } from '../../common/pagination/paginate';
import { AppConfig } from '../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import { SpaceAccess } from '../access/space-access.service';
import { User } from '../users/user.entity';
import { ChangeRequestMergeService } from './change-request-merge.service';
import { CHANGE_REQUEST_POLICY } from './change-request.policy';
import { ChangeRequestJson, presentChangeRequest } from './change-request.presenter';
import type { MergeOutcome } from './change-request.read-model';
import { MERGE_RESULT_SCHEMA, PDF_PENDING_SCHEMA, PDF_URL_SCHEMA, UPDATE_RESULT_SCHEMA } from './change-request.schemas';
import { ChangeRequestsService } from './change-requests.service';
import { CreateChangeRequestDto, PdfDownloadQueryDto, PdfQueryDto, UpdateChangeRequestDto } from './dto/change-request.dto';
import { ListChangeRequestsQueryDto } from './dto/list-change-requests-query.dto';
import { ChangeRequestPdfService } from './pdf/change-request-pdf.service';

const ID_PARAM = { name: 'changeRequestId', description: 'The change request ID or its number in the space' };

/** Change requests of a space (section 4.5). */
@ApiTags('change-requests')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/change-requests')
@SpaceAction(CHANGE_REQUEST_POLICY.read)
export class ChangeRequestsController {
  constructor(
    private readonly changeRequests: ChangeRequestsService,
    private readonly merges: ChangeRequestMergeService,
    private readonly pdfs: ChangeRequestPdfService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listChangeRequestsForSpace', summary: 'Change requests of the space, newest first (status defaults to open)' })
  @ApiOkResponse({ schema: publicListSchema('ChangeRequest') })
  async list(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: ListChangeRequestsQueryDto) {
    const { page, ...context } = await this.changeRequests.list(user, access, query);
    return mapPage(page, (changeRequest) => presentChangeRequest({ ...context, changeRequest }, this.config));
  }

  @Post()
  @HttpCode(201)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({ operationId: 'createChangeRequest', summary: "Open a change request on the space's active revision (needs edit)" })
  @ApiCreatedResponse({ schema: publicSchema('ChangeRequest') })
  async create(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Body() dto: CreateChangeRequestDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ChangeRequestJson> {
    const json = presentChangeRequest(await this.changeRequests.create(user, access, dto), this.config);
    res.setHeader('Location', json.urls.location);
    return json;
  }

  @Get(':changeRequestId')
  @ApiParam(ID_PARAM)
  @SiteTokenContent()
  @ApiOperation({ operationId: 'getChangeRequestById', summary: 'A change request, by ID or by number' })
  @ApiOkResponse({ schema: publicSchema('ChangeRequest') })
  async get(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string): Promise<ChangeRequestJson> {
    return presentChangeRequest(await this.changeRequests.get(user, access, id), this.config);
  }

  @Patch(':changeRequestId')
  @ApiParam(ID_PARAM)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({ operationId: 'updateChangeRequestById', summary: 'Subject and status (draft, open, archived; merged only by merging)' })
  @ApiOkResponse({ schema: publicSchema('ChangeRequest') })
  async update(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Body() dto: UpdateChangeRequestDto,
  ): Promise<ChangeRequestJson> {
    return presentChangeRequest(await this.changeRequests.update(user, access, id, dto), this.config);
  }

  @Post(':changeRequestId/merge')
  @HttpCode(200)
  @ApiParam(ID_PARAM)
  @SpaceAction(CHANGE_REQUEST_POLICY.merge)
  @ApiOperation({ operationId: 'mergeChangeRequest', summary: 'Three-way merge into main (needs merge; 409 naming conflicting pages, nothing written)' })
  @ApiOkResponse({ schema: MERGE_RESULT_SCHEMA })
  merge(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string): Promise<MergeOutcome> {
    return this.merges.merge(user, access, id);
  }

  @Post(':changeRequestId/update')
  @HttpCode(200)
  @ApiParam(ID_PARAM)
  @SpaceAction(CHANGE_REQUEST_POLICY.write)
  @ApiOperation({ operationId: 'updateChangeRequest', summary: 'Pull main into the change request (three-way merge; 409 on conflicts)' })
  @ApiOkResponse({ schema: UPDATE_RESULT_SCHEMA })
  updateFromMain(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string): Promise<MergeOutcome> {
    return this.merges.update(user, access, id);
  }

  @Get(':changeRequestId/pdf')
  @ApiParam(ID_PARAM)
  @ApiOperation({ operationId: 'getChangeRequestPDF', summary: 'URL of a PDF of the change request (or of one page); fetch it with the same bearer token' })
  @ApiOkResponse({ schema: PDF_URL_SCHEMA })
  pdf(@CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string, @Query() query: PdfQueryDto): Promise<{ url: string }> {
    return this.pdfs.url(access, id, query);
  }

  @Get(':changeRequestId/pdf/download')
  @ApiParam(ID_PARAM)
  @ApiOperation({
    operationId: 'downloadChangeRequestPDF',
    summary:
      'The PDF itself (the url of getChangeRequestPDF); needs read access to the space. Rendered by a job: waits up to PDF_RENDER_WAIT_MS, then 202 {status: "pending"} with Retry-After',
  })
  @ApiProduces('application/pdf')
  @ApiOkResponse({ description: 'The PDF' })
  @ApiAcceptedResponse({ description: 'Still rendering: fetch again after Retry-After seconds', schema: PDF_PENDING_SCHEMA })
  async download(
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: PdfDownloadQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const pdf = await this.pdfs.download(access, id, query);
    if (pdf.status === 'pending') {
      res.status(202).set({ 'Retry-After': '1', 'Cache-Control': 'no-store' }).json({ status: 'pending' });
      return;
    }
    res.set({
      'Content-Type': 'application/pdf',
      'Content-Length': String(pdf.data.length),
      'Content-Disposition': `inline; filename="${pdf.filename}"`,
      'Cache-Control': 'private, no-store',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    });
    res.end(pdf.data);
  }
}
