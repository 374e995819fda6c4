import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { ContentModule } from '../content/content.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { UsersModule } from '../users/users.module';
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
import { ChangeRequestPdfService } from './pdf/change-request-pdf.service';

/** Change requests: branch, author, update from main, merge, PDF (sections 4.5, 4.7). `ChangeRequestsService.resolve` serves other modules. */
@Module({
  imports: [TypeOrmModule.forFeature([ChangeRequest, ChangeRequestContributor]), AccessModule, ContentModule, SpaceWritesModule, UsersModule, OutboundModule],
  controllers: [ChangeRequestsController, ChangeRequestContentController],
  providers: [
    ChangeRequestsRepository,
    ChangeRequestsService,
    ChangeRequestRevisions,
    ChangeRequestContentService,
    ChangeRequestMergeService,
    ChangeRequestImportService,
    ChangeRequestPdfService,
  ],
  exports: [TypeOrmModule, ChangeRequestsService],
})
export class ChangeRequestsModule {}
