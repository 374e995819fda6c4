import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { ChangeRequestsModule } from '../change-requests/change-requests.module';
import { MembersModule } from '../members/members.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { UsersModule } from '../users/users.module';
import { Comment } from './comment.entity';
import { CommentReaction, CommentReplyReaction } from './comment-reaction.entity';
import { CommentReply } from './comment-reply.entity';
import { ChangeRequestCommentsController, CommentsController } from './comments.controller';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';
import { AppConfig } from '../../config/app-config';
import { REVIEW_COMMENTS, type ReviewCommentJson, type ReviewCommentsPort } from '../change-requests/reviews/review-comments.port';
import { UsersService } from '../users/users.service';
import { CommentResponses } from './comment.presenter';

/** The `REVIEW_COMMENTS` port: review comments are comments, presented as the comment routes present them. */
function reviewComments(comments: CommentsService, users: UsersService, config: AppConfig): ReviewCommentsPort {
  const respond = new CommentResponses((viewerId, ids) => users.emailVisibility(viewerId, ids), config);
  return {
    post: (write, changeRequest, reviewId, markdown, caller) => comments.postForReview(write, changeRequest, reviewId, markdown, caller),
    async shown(viewer, permissions, format, changeRequest, reviewIds) {
      const shown = new Map<string, ReviewCommentJson>();
      for (const [reviewId, row] of await comments.ofReviews(changeRequest, reviewIds))
        shown.set(reviewId, (await respond.comment(viewer, permissions, format, row)) as unknown as ReviewCommentJson);
      return shown;
    },
  };
}

/**
 * Comments, replies and reactions on spaces and change requests (sections 2.4, 2.5, 4.4, 4.6). Global
 * only to provide the reviews' comment port (`REVIEW_COMMENTS`) to change requests, below it.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature([Comment, CommentReply, CommentReaction, CommentReplyReaction]),
    AccessModule,
    SpaceWritesModule,
    ChangeRequestsModule,
    MembersModule,
    UsersModule,
  ],
  controllers: [CommentsController, ChangeRequestCommentsController],
  exports: [REVIEW_COMMENTS],
  providers: [
    CommentsRepository,
    CommentsService,
    { provide: REVIEW_COMMENTS, inject: [CommentsService, UsersService, AppConfig], useFactory: reviewComments },
  ],
})
export class CommentsModule {}
