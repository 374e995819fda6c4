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

/** Comments on the space itself (section 4.4): reads need `view`, writes `comment` (the policy decides the rest). */
@ApiTags('comments')
@ApiBearerAuth()
@ApiParam({ name: 'spaceId' })
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/spaces/:spaceId')
@SpaceAction('comment')
export class CommentsController {
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
  @ApiOperation({ operationId: 'listCommentsInSpace', summary: 'List the comments on a space' })
  @ApiOkResponse({ schema: publicListSchema('Comment') })
  async list(@CurrentUser() caller: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: ListCommentsQueryDto) {
    const page = await this.comments.list(access, null, query);
    return this.respond.comments(caller, access.permissions, query.format, page);
  }

  @Post('comments')
  @HttpCode(200)
  @ApiOperation({ operationId: 'postCommentInSpace', summary: 'Post a comment on the space, a page or a node of a page' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async post(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Body() dto: PostCommentDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    const { row, access: after } = await this.comments.post(caller, access, null, dto);
    return this.respond.comment(caller, after.permissions, query.format, row);
  }

  @Get('comments/:commentId')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'getCommentInSpace', summary: 'Get a comment' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async get(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    return this.respond.comment(caller, access.permissions, query.format, await this.comments.get(access, null, commentId));
  }

  @Put('comments/:commentId')
  @ApiOperation({ operationId: 'updateCommentInSpace', summary: 'Edit the body (author), resolve or reopen (reviewers, author), react' })
  @ApiOkResponse({ schema: publicSchema('Comment') })
  async update(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Body() dto: UpdateCommentDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentJson> {
    const { row, access: after } = await this.comments.update(caller, access, null, commentId, dto);
    return this.respond.comment(caller, after.permissions, query.format, row);
  }

  @Delete('comments/:commentId')
  @ApiOperation({ operationId: 'deleteCommentInSpace', summary: 'Delete a comment and its replies (author, space admins)' })
  @ApiResponse({ status: 205, description: 'The comment has been deleted' })
  @ApiNoContentResponse({ description: 'Comment did not exist' })
  async delete(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    res.status((await this.comments.delete(caller, access, null, commentId)) ? 205 : 204);
  }

  @Get('comments/:commentId/replies')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'listCommentRepliesInSpace', summary: 'List the replies to a comment, oldest first' })
  @ApiOkResponse({ schema: publicListSchema('CommentReply') })
  async listReplies(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Query() query: ListRepliesQueryDto,
  ) {
    const page = await this.comments.listReplies(access, null, commentId, query);
    return this.respond.replies(caller, access.permissions, query.format, page);
  }

  @Post('comments/:commentId/replies')
  @HttpCode(200)
  @ApiOperation({ operationId: 'postCommentReplyInSpace', summary: 'Reply to a comment' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async postReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Body() dto: PostCommentReplyDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    const { row, access: after } = await this.comments.postReply(caller, access, null, commentId, dto.body.markdown);
    return this.respond.reply(caller, after.permissions, query.format, row);
  }

  @Get('comments/:commentId/replies/:commentReplyId')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'getCommentReplyInSpace', summary: 'Get a reply' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async getReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    return this.respond.reply(caller, access.permissions, query.format, await this.comments.getReply(access, null, commentId, replyId));
  }

  @Put('comments/:commentId/replies/:commentReplyId')
  @ApiOperation({ operationId: 'updateCommentReplyInSpace', summary: 'Edit the body of a reply (author), react' })
  @ApiOkResponse({ schema: publicSchema('CommentReply') })
  async updateReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Body() dto: UpdateCommentReplyDto,
    @Query() query: CommentFormatQueryDto,
  ): Promise<CommentReplyJson> {
    const { row, access: after } = await this.comments.updateReply(caller, access, null, commentId, replyId, dto);
    return this.respond.reply(caller, after.permissions, query.format, row);
  }

  @Delete('comments/:commentId/replies/:commentReplyId')
  @ApiOperation({ operationId: 'deleteCommentReplyInSpace', summary: 'Delete a reply (author, space admins)' })
  @ApiResponse({ status: 205, description: 'The reply has been deleted' })
  @ApiNoContentResponse({ description: 'Comment reply did not exist' })
  async deleteReply(
    @CurrentUser() caller: User,
    @CurrentSpaceAccess() access: SpaceAccess,
    @Param('commentId') commentId: string,
    @Param('commentReplyId') replyId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    res.status((await this.comments.deleteReply(caller, access, null, commentId, replyId)) ? 205 : 204);
  }

  @Get('commenters')
  @SpaceAction('view')
  @ApiOperation({ operationId: 'listCommentersInSpace', summary: 'The members who commented or replied on the space' })
  @ApiOkResponse({ schema: publicListSchema('OrganizationMember') })
  async commenters(@CurrentUser() caller: User, @CurrentSpaceAccess() access: SpaceAccess, @Query() query: ListQueryDto) {
    return this.respond.members(caller, await this.comments.commenters(access, null, query));
  }
}
