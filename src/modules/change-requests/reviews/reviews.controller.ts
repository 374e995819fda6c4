import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtension,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResetContentResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../../common/access/script-access';
import { NotForSiteTokens } from '../../../common/access/site-access';
import { CurrentUser } from '../../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../../common/openapi/public-schema';
import { mapPage } from '../../../common/pagination/paginate';
import { AppConfig } from '../../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../../access/route-access.guard';
import { SpaceAccess } from '../../access/space-access.service';
import { User } from '../../users/user.entity';
import { ContributorsQueryDto, ListReviewsQueryDto, MergeRulesDto, RequestReviewersDto, ReviewQueryDto, SubmitReviewDto } from './dto/review.dto';
import { presentContributor, presentMergeRules, presentRequestedReviewer, presentReview, type MergeRulesJson, type ReviewJson } from './review.presenter';
import { REVIEW_POLICY, ReviewsService } from './reviews.service';

const ID_PARAM = { name: 'changeRequestId', description: 'The change request ID or its number in the space' };

/** Quire's own shape for the merge rules (no public schema: a Quire extension). */
const MERGE_RULES_SCHEMA = {
  type: 'object',
  required: ['object', 'space', 'requiredApprovals', 'urls'],
  properties: {
    object: { type: 'string', enum: ['space-merge-rules'] },
    space: { type: 'string' },
    requiredApprovals: {
      type: 'integer',
      minimum: 0,
      maximum: 20,
      description: 'Approvals of the current revision a merge needs, besides the public mergeRules',
    },
    urls: { type: 'object', required: ['location'], properties: { location: { type: 'string', format: 'uri' } } },
  },
};

/** Reviews, requested reviewers and contributors of a change request (the public `change-requests-reviews` operations). */
@ApiTags('change-requests')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/change-requests/:changeRequestId')
@SpaceAction(REVIEW_POLICY.read)
export class ReviewsController {
  constructor(private readonly reviews: ReviewsService) {}

  @Get('reviews')
  @ApiParam(ID_PARAM)
  @ApiOperation({ operationId: 'getReviewsByChangeRequestId', summary: 'Reviews of the change request, newest first; `outdated` filters' })
  @ApiOkResponse({ schema: publicListSchema('ChangeRequestReview') })
  async list(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string, @Query() query: ListReviewsQueryDto) {
    const { cr, page, people, comments } = await this.reviews.list(user, access, id, query);
    return mapPage(page, (row) => presentReview(cr, row, people, comments));
  }

  @Post('reviews')
  @HttpCode(201)
  @ApiParam(ID_PARAM)
  @SpaceAction(REVIEW_POLICY.submit)
  @ApiOperation({
    operationId: 'submitChangeRequestReview',
    summary: "Approve or ask for changes on the change request's current revision (needs review; the author cannot approve their own)",
  })
  @ApiCreatedResponse({ schema: publicSchema('ChangeRequestReview') })
  async submit(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Body() dto: SubmitReviewDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ReviewJson> {
    const { cr, row, people, comments } = await this.reviews.submit(user, access, id, dto);
    const json = presentReview(cr, row, people, comments);
    res.setHeader('Location', json.urls.location);
    return json;
  }

  @Get('reviews/:reviewId')
  @ApiParam(ID_PARAM)
  @ApiOperation({ operationId: 'getChangeRequestReviewById', summary: 'A review of the change request' })
  @ApiOkResponse({ schema: publicSchema('ChangeRequestReview') })
  async get(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('reviewId') reviewId: string,
    @Query() query: ReviewQueryDto,
  ): Promise<ReviewJson> {
    const { cr, row, people, comments } = await this.reviews.get(user, access, id, reviewId, query.format);
    return presentReview(cr, row, people, comments);
  }

  @Get('requested-reviewers')
  @ApiParam(ID_PARAM)
  @ApiOperation({ operationId: 'getRequestedReviewersByChangeRequestId', summary: 'Users asked to review who have not reviewed since, oldest request first' })
  @ApiOkResponse({ schema: publicListSchema('ChangeRequestRequestedReviewer') })
  async requested(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: ContributorsQueryDto,
  ) {
    const { page, people } = await this.reviews.listRequested(user, access, id, query);
    return mapPage(page, (row) => presentRequestedReviewer(row, people));
  }

  @Post('requested-reviewers')
  @HttpCode(200)
  @ApiParam(ID_PARAM)
  @SpaceAction(REVIEW_POLICY.request)
  @ApiOperation({ operationId: 'requestReviewersForChangeRequest', summary: 'Ask users to review (needs edit); optionally sets the subject' })
  @ApiOkResponse({ schema: { type: 'object', properties: { users: { type: 'array', items: publicSchema('ChangeRequestRequestedReviewer') } } } })
  async request(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Param('changeRequestId') id: string, @Body() dto: RequestReviewersDto) {
    const { rows, people } = await this.reviews.request(user, access, id, dto);
    return { users: rows.map((row) => presentRequestedReviewer(row, people)) };
  }

  @Delete('requested-reviewers/:userId')
  @ApiParam(ID_PARAM)
  @SpaceAction(REVIEW_POLICY.request)
  @ApiOperation({ operationId: 'removeRequestedReviewerFromChangeRequest', summary: 'No longer ask the user to review (needs edit)' })
  @ApiResetContentResponse({ description: 'The reviewer has been removed from the change request' })
  @ApiNoContentResponse({ description: 'The user was not a requested reviewer' })
  async unrequest(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Param('userId') userId: string,
    @Res() res: Response,
  ): Promise<void> {
    res.status((await this.reviews.unrequest(user, access, id, userId)) ? 205 : 204).end();
  }

  @Get('contributors')
  @ApiParam(ID_PARAM)
  @ApiOperation({
    operationId: 'getContributorsByChangeRequestId',
    summary: 'Users who created or edited the change request, with their number of edits, latest first',
  })
  @ApiOkResponse({ schema: publicListSchema('ChangeRequestUserContributor') })
  async contributors(
    @CurrentUser() user: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') id: string,
    @Query() query: ContributorsQueryDto,
  ) {
    const { page, people } = await this.reviews.contributors(user, access, id, query);
    return mapPage(page, (row) => presentContributor(row, people));
  }
}

/**
 * The number of approvals a merge of the space needs: a Quire extension (`x-quire-extension`). The
 * public `mergeRules` of the space (PATCH /v1/spaces/{spaceId}) and of its organization say everything
 * else, but count one approval at most (`require_at_least_one_approved_review`).
 */
@ApiTags('change-requests')
@ApiBearerAuth()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/merge-rules')
@SpaceAction(REVIEW_POLICY.read)
export class MergeRulesController {
  constructor(
    private readonly reviews: ReviewsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiExtension('x-quire-extension', 'merge-rules')
  @ApiOperation({
    operationId: 'getSpaceMergeRules',
    summary: "Quire extension: how many approvals of the current revision merging a change request of the space needs, besides the space's public mergeRules",
  })
  @ApiOkResponse({ schema: MERGE_RULES_SCHEMA })
  async get(@CurrentSpaceAccess() access: SpaceAccess): Promise<MergeRulesJson> {
    return presentMergeRules(access.space.id, await this.reviews.mergeRules(access), this.config);
  }

  @Put()
  @SpaceAction(REVIEW_POLICY.rules)
  @ApiExtension('x-quire-extension', 'merge-rules')
  @ApiOperation({
    operationId: 'updateSpaceMergeRules',
    summary:
      "Quire extension (needs admin): a merge then needs `requiredApprovals` approvals of the current revision (reviewers whose latest review approves it), besides the space's public mergeRules; otherwise 409 change_request.merge_rule. The users of an `allow_bypass` rule merge anyway",
  })
  @ApiOkResponse({ schema: MERGE_RULES_SCHEMA })
  async put(@CurrentUser() user: User, @CurrentSpaceAccess() access: SpaceAccess, @Body() dto: MergeRulesDto): Promise<MergeRulesJson> {
    return presentMergeRules(access.space.id, await this.reviews.setMergeRules(user, access, dto), this.config);
  }
}
