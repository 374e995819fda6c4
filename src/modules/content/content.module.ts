import { Module } from '@nestjs/common';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { SpaceWritesModule } from '../spaces/space-writes.module';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { ImportController } from './import/import.controller';
import { WebsiteImportService } from './import/website-import.service';
import { LinksController } from './links/links.controller';
import { LinksRepository } from './links/links.repository';
import { LinksService } from './links/links.service';
import { RevisionLifecycleService } from './revision-lifecycle.service';
import { RevisionWriter } from './revision-writer';
import { RevisionsController } from './revisions.controller';
import { SearchController } from './search/search.controller';
import { SearchService } from './search/search.service';

/** Space content: revisions and their pages and files, website import, search, links. */
@Module({
  imports: [AccessModule, OutboundModule, SpaceWritesModule],
  controllers: [ContentController, RevisionsController, LinksController, SearchController, ImportController],
  providers: [ContentRepository, ContentService, RevisionWriter, RevisionLifecycleService, SearchService, LinksRepository, LinksService, WebsiteImportService],
  exports: [RevisionLifecycleService, RevisionWriter, ContentRepository],
})
export class ContentModule {}
