import { Module } from '@nestjs/common';
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

/** Comments, replies and reactions on spaces and change requests (sections 2.4, 2.5, 4.4, 4.6). */
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
  providers: [CommentsRepository, CommentsService],
})
export class CommentsModule {}
