import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { CurrentUser } from '../../common/auth/current-user.decorator';
import { publicListSchema, publicSchema } from '../../common/openapi/public-schema';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { AppConfig } from '../../config/app-config';
import { CurrentSpaceAccess, SpaceAction } from '../access/route-access.guard';
import type { SpaceAccess } from '../access/space-access.service';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { CommentJson, CommentReplyJson, CommentResponses } from './comment.presenter';
import { CommentsService } from './comments.service';
import { PostCommentDto, PostCommentReplyDto, UpdateCommentDto, UpdateCommentReplyDto } from './dto/comment-body.dto';
import { CommentFormatQueryDto, ListCommentsQueryDto, ListRepliesQueryDto } from './dto/comment-query.dto';

/**
 * Comments on a change request (section 4.6): the shapes and rules of the space's comments, on the
 * change request's head revision. The reply update and delete routes are the public description's.
 */
@ApiTags('comments')
@ApiBearerAuth()
@ApiParam({ name: 'spaceId' })
@ApiParam({ name: 'changeRequestId', description: 'The change request ID or its number in the space' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId/change-requests/:changeRequestId')
@SpaceAction('comment')
export class ChangeRequestCommentsController {
  private readonly respond: CommentResponses;

  constructor(
    private readonly comments: CommentsService,
    users: UsersService,
    config: AppConfig,
  ) {
    this.respond = new CommentResponses((viewerId, ids) => users.emailVisibility(viewerId, ids), config);
  }

  @Get('comments')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'listCommentsInChangeRequest', summary: 'List the comments on a change request' })
  @ApiOkResponse({ schema: publicListSchema('Comment') })
  async list(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Query() query: ListCommentsQueryDto,
  ) {
    const page = await this.comments.list(access, changeRequest, query);
    return this.respond.comments(caller, access.permissions, query.format, page);
  }

  @Post('comments')
  @HttpCode(200)
  @ApiOperation({ operationId: 'postCommentInChangeRequest', summary: 'Post a comment on the change request, a page or a node of a page' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async post(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Body() dto: PostCommentDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    const { row, access: after } = await this.comments.post(caller, access, changeRequest, dto);
    return this.respond.comment(caller, after.permissions, query.format, row);
  }

  @Get('comments/:commentId')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'getCommentInChangeRequest', summary: 'Get a comment' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async get(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    return this.respond.comment(caller, access.permissions, query.format, await this.comments.get(access, changeRequest, commentId));
  }

  @Put('comments/:commentId')
  @ApiOperation({ operationId: 'updateCommentInChangeRequest', summary: 'Edit the body (author), resolve or reopen (reviewers, author), react' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async update(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Body() dto: UpdateCommentDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    const { row, access: after } = await this.comments.update(caller, access, changeRequest, commentId, dto);
    return this.respond.comment(caller, after.permissions, query.format, row);
  }

  @Delete('comments/:commentId')
  @ApiOperation({ operationId: 'deleteCommentInChangeRequest', summary: 'Delete a comment and its replies (author, space admins)' })
  @ApiResponse({ status: 205, description: 'The comment has been deleted' })
  @ApiNoContentResponse({ description: 'Comment did not exist' })
  async delete(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    res.status((await this.comments.delete(caller, access, changeRequest, commentId)) ? 205 : 204);
  }

  @Get('comments/:commentId/replies')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'listCommentRepliesInChangeRequest', summary: 'List the replies to a comment, oldest first' })
  @ApiOkResponse({ schema: publicListSchema('CommentReply') })
  async listReplies(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Query() query: ListRepliesQueryDto,
  ) {
    const page = await this.comments.listReplies(access, changeRequest, commentId, query);
    return this.respond.replies(caller, access.permissions, query.format, page);
  }

  @Post('comments/:commentId/replies')
  @HttpCode(200)
  @ApiOperation({ operationId: 'postCommentReplyInChangeRequest', summary: 'Reply to a comment' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async postReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Body() dto: PostCommentReplyDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    const { row, access: after } = await this.comments.postReply(caller, access, changeRequest, commentId, dto.body.markdown);
    return this.respond.reply(caller, after.permissions, query.format, row);
  }

  @Get('comments/:commentId/replies/:commentReplyId')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'getCommentReplyInChangeRequest', summary: 'Get a reply' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async getReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    return this.respond.reply(caller, access.permissions, query.format, await this.comments.getReply(access, changeRequest, commentId, replyId));
  }

  @Put('comments/:commentId/replies/:commentReplyId')
  @ApiOperation({ operationId: 'updateCommentReplyInChangeRequest', summary: 'Edit the body of a reply (author), react' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async updateReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Body() dto: UpdateCommentReplyDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    const { row, access: after } = await this.comments.updateReply(caller, access, changeRequest, commentId, replyId, dto);
    return this.respond.reply(caller, after.permissions, query.format, row);
  }

  @Delete('comments/:commentId/replies/:commentReplyId')
  @ApiOperation({ operationId: 'deleteCommentReplyInChangeRequest', summary: 'Delete a reply (author, space admins)' })
  @ApiResponse({ status: 205, description: 'The reply has been deleted' })
  @ApiNoContentResponse({ description: 'Comment reply did not exist' })
  async deleteReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    res.status((await this.comments.deleteReply(caller, access, changeRequest, commentId, replyId)) ? 205 : 204);
  }

  @Get('commenters')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'listCommentersInChangeRequest', summary: 'The members who commented or replied on the change request' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationMember') })
  async commenters(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('changeRequestId') changeRequest: string,
    @Query() query: ListQueryDto,
  ) {
    return this.respond.members(caller, await this.comments.commenters(access, changeRequest, query));
  }
}
