import { Body, Controller, createParamDecorator, Delete, ExecutionContext, Get, HttpCode, Param, Post, Put, Query, Res, Type } from '@nestjs/common';
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

/** Where a set of comment routes hangs: the space itself, or one of its change requests. */
interface CommentTarget {
  className: string;
  path: string;
  /** The end of every operation id: `listComments${suffix}`… */
  suffix: 'InSpace' | 'InChangeRequest';
  noun: string;
  aNoun: string;
}

/** The change request the route names (`{changeRequestId}`: id or number), or null on the space's own routes. */
const CommentScope = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | null => {
  const params = ctx.switchToHttp().getRequest<{ params: Record<string, string | undefined> }>().params;
  return params.changeRequestId ?? null;
});

/**
 * The eleven comment routes, built once for each place comments hang (section 4.4 on spaces, 4.6 on
 * change requests): same shapes, rules and access (reads need `view`, writes `comment`; the policy
 * decides the rest), operation ids ending in the target's suffix.
 */
function commentsController(target: CommentTarget): Type<unknown> {
  @ApiTags('comments')
  @ApiBearerAuth()
  @ApiParam({ name: 'spaceId' })
  @NotForScripts()
  @NotForSiteTokens()
  @Controller(target.path)
  @SpaceAction('comment')
  class CommentRoutes {
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
    @ApiOperation({ operationId: `listComments${target.suffix}`, summary: `List the comments on ${target.aNoun}` })
    @ApiOkResponse({ schema: publicListSchema('Comment') })
    async list(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Query() query: ListCommentsQueryDto,
    ) {
      const page = await this.comments.list(access, scope, query);
      return this.respond.comments(caller, access.permissions, query.format, page);
    }

    @Post('comments')
    @HttpCode(200)
    @ApiOperation({ operationId: `postComment${target.suffix}`, summary: `Post a comment on ${target.noun}, a page or a node of a page` })
    @ApiOkResponse({ schema: publicSchema('Comment') })
    async post(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Body() dto: PostCommentDto,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentJson> {
      const { row, access: after } = await this.comments.post(caller, access, scope, dto);
      return this.respond.comment(caller, after.permissions, query.format, row);
    }

    @Get('comments/:commentId')
    @SpaceAction('view')
    @ApiOperation({ operationId: `getComment${target.suffix}`, summary: `Get a comment` })
    @ApiOkResponse({ schema: publicSchema('Comment') })
    async get(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentJson> {
      return this.respond.comment(caller, access.permissions, query.format, await this.comments.get(access, scope, commentId));
    }

    @Put('comments/:commentId')
    @ApiOperation({ operationId: `updateComment${target.suffix}`, summary: `Edit the body (author), resolve or reopen (reviewers, author), react` })
    @ApiOkResponse({ schema: publicSchema('Comment') })
    async update(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Body() dto: UpdateCommentDto,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentJson> {
      const { row, access: after } = await this.comments.update(caller, access, scope, commentId, dto);
      return this.respond.comment(caller, after.permissions, query.format, row);
    }

    @Delete('comments/:commentId')
    @ApiOperation({ operationId: `deleteComment${target.suffix}`, summary: `Delete a comment and its replies (author, space admins)` })
    @ApiResponse({ status: 205, description: 'The comment has been deleted' })
    @ApiNoContentResponse({ description: 'Comment did not exist' })
    async delete(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Res({ passthrough: true }) res: Response,
    ): Promise<void> {
      res.status((await this.comments.delete(caller, access, scope, commentId)) ? 205 : 204);
    }

    @Get('comments/:commentId/replies')
    @SpaceAction('view')
    @ApiOperation({ operationId: `listCommentReplies${target.suffix}`, summary: `List the replies to a comment, oldest first` })
    @ApiOkResponse({ schema: publicListSchema('CommentReply') })
    async listReplies(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Query() query: ListRepliesQueryDto,
    ) {
      const page = await this.comments.listReplies(access, scope, commentId, query);
      return this.respond.replies(caller, access.permissions, query.format, page);
    }

    @Post('comments/:commentId/replies')
    @HttpCode(200)
    @ApiOperation({ operationId: `postCommentReply${target.suffix}`, summary: `Reply to a comment` })
    @ApiOkResponse({ schema: publicSchema('CommentReply') })
    async postReply(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Body() dto: PostCommentReplyDto,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentReplyJson> {
      const { row, access: after } = await this.comments.postReply(caller, access, scope, commentId, dto.body.markdown);
      return this.respond.reply(caller, after.permissions, query.format, row);
    }

    @Get('comments/:commentId/replies/:commentReplyId')
    @SpaceAction('view')
    @ApiOperation({ operationId: `getCommentReply${target.suffix}`, summary: `Get a reply` })
    @ApiOkResponse({ schema: publicSchema('CommentReply') })
    async getReply(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Param('commentReplyId') replyId: string,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentReplyJson> {
      return this.respond.reply(caller, access.permissions, query.format, await this.comments.getReply(access, scope, commentId, replyId));
    }

    @Put('comments/:commentId/replies/:commentReplyId')
    @ApiOperation({ operationId: `updateCommentReply${target.suffix}`, summary: `Edit the body of a reply (author), react` })
    @ApiOkResponse({ schema: publicSchema('CommentReply') })
    async updateReply(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Param('commentReplyId') replyId: string,
      @Body() dto: UpdateCommentReplyDto,
      @Query() query: CommentFormatQueryDto,
    ): Promise<CommentReplyJson> {
      const { row, access: after } = await this.comments.updateReply(caller, access, scope, commentId, replyId, dto);
      return this.respond.reply(caller, after.permissions, query.format, row);
    }

    @Delete('comments/:commentId/replies/:commentReplyId')
    @ApiOperation({ operationId: `deleteCommentReply${target.suffix}`, summary: `Delete a reply (author, space admins)` })
    @ApiResponse({ status: 205, description: 'The reply has been deleted' })
    @ApiNoContentResponse({ description: 'Comment reply did not exist' })
    async deleteReply(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Param('commentId') commentId: string,
      @Param('commentReplyId') replyId: string,
      @Res({ passthrough: true }) res: Response,
    ): Promise<void> {
      res.status((await this.comments.deleteReply(caller, access, scope, commentId, replyId)) ? 205 : 204);
    }

    @Get('commenters')
    @SpaceAction('view')
    @ApiOperation({ operationId: `listCommenters${target.suffix}`, summary: `The members who commented or replied on ${target.noun}` })
    @ApiOkResponse({ schema: publicListSchema('OrganizationMember') })
    async commenters(
      @CurrentUser() caller: User,
      @CurrentSpaceAccess() access: SpaceAccess,
      @CommentScope() scope: string | null,
      @Query() query: ListQueryDto,
    ) {
      return this.respond.members(caller, await this.comments.commenters(access, scope, query));
    }
  }
  if (target.suffix === 'InChangeRequest')
    ApiParam({ name: 'changeRequestId', type: String, description: 'The change request ID or its number in the space' })(CommentRoutes);
  Object.defineProperty(CommentRoutes, 'name', { value: target.className });
  return CommentRoutes;
}

/** Comments on the space itself (section 4.4). */
export const CommentsController = commentsController({
  className: 'CommentsController',
  path: 'v1/spaces/:spaceId',
  suffix: 'InSpace',
  noun: 'the space',
  aNoun: 'a space',
});

/**
 * Comments on a change request (section 4.6): the shapes and rules of the space's comments, on the
 * change request's head revision. `{changeRequestId}` is its id or its number in the space.
 */
export const ChangeRequestCommentsController = commentsController({
  className: 'ChangeRequestCommentsController',
  path: 'v1/spaces/:spaceId/change-requests/:changeRequestId',
  suffix: 'InChangeRequest',
  noun: 'the change request',
  aNoun: 'a change request',
});
