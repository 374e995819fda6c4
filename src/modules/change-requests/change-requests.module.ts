import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../../config/app-config';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { ContentModule } from '../content/content.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { UsersModule } from '../users/users.module';
import { TeamsModule } from '../teams/teams.module';
import { ChangeRequestContentController } from './change-request-content.controller';
import { ChangeRequestContentService } from './change-request-content.service';
import { ChangeRequestContributor } from './change-request-contributor.entity';
import { ChangeRequestImportService } from './change-request-import.service';
import { ChangeRequestMergeService } from './change-request-merge.service';
import { ChangeRequestRevisions } from './change-request-revisions';
import { ChangeRequest } from './change-request.entity';
import { ChangeRequestsController } from './change-requests.controller';
import { ChangeRequestsRepository } from './change-requests.repository';
import { ChangeRequestsService } from './change-requests.service';
import { ChangeRequestPdfRender } from './pdf/change-request-pdf-render.entity';
import { ChangeRequestPdfService } from './pdf/change-request-pdf.service';
import { PdfRendersRepository } from './pdf/pdf-renders.repository';
import { PdfRenderJobs } from './pdf/render-pdf.job';
import { ChangeRequestChangesController, RevisionChangesController } from './changes/changes.controller';
import { ChangeRequestChangesService } from './changes/changes.service';
import {
  ChangeRequestRequestedReviewer,
  ChangeRequestRequestedTeam,
  ChangeRequestReview,
  ChangeRequestReviewRequest,
  SpaceMergeRules,
} from './reviews/review.entity';
import { MergeRulesController, ReviewsController } from './reviews/reviews.controller';
import { ReviewsRepository } from './reviews/reviews.repository';
import { ReviewsService } from './reviews/reviews.service';
import { presentMergeRulesContext } from './reviews/review.presenter';
import { MERGE_RULES_CONTEXT_PRESENTER, type MergeRulesContextPresenter } from './reviews/review.read-model';

/** Change requests: branch, author, update from main, merge, PDF (sections 4.5, 4.7). `ChangeRequestsService.resolve` serves other modules. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      ChangeRequest,
      ChangeRequestContributor,
      ChangeRequestPdfRender,
      ChangeRequestReview,
      ChangeRequestRequestedReviewer,
      ChangeRequestRequestedTeam,
      ChangeRequestReviewRequest,
      SpaceMergeRules,
    ]),
    AccessModule,
    ContentModule,
    SpaceWritesModule,
    UsersModule,
    TeamsModule,
    OutboundModule,
  ],
  controllers: [
    ChangeRequestsController,
    ChangeRequestContentController,
    ReviewsController,
    MergeRulesController,
    ChangeRequestChangesController,
    RevisionChangesController,
  ],
  providers: [
    ChangeRequestsRepository,
    ChangeRequestsService,
    ChangeRequestRevisions,
    ChangeRequestContentService,
    ChangeRequestMergeService,
    ChangeRequestImportService,
    ChangeRequestPdfService,
    PdfRendersRepository,
    PdfRenderJobs,
    ReviewsRepository,
    ReviewsService,
    ChangeRequestChangesService,
    {
      provide: MERGE_RULES_CONTEXT_PRESENTER,
      inject: [AppConfig],
      useFactory:
        (config: AppConfig): MergeRulesContextPresenter =>
        (view) =>
          presentMergeRulesContext(view, config),
    },
  ],
  exports: [TypeOrmModule, ChangeRequestsService],
})
export class ChangeRequestsModule {}
