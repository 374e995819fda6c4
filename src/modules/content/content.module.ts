import { Module } from '@nestjs/common';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
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
import { SearchIndexRepository } from './search/search-index.repository';
import { SearchController } from './search/search.controller';
import { SearchService } from './search/search.service';

/** Space content: revisions and their pages and files, website import, search, links. */
@Module({
  imports: [AccessModule, OutboundModule, OrganizationsModule],
  controllers: [ContentController, RevisionsController, LinksController, SearchController, ImportController],
  providers: [
    ContentRepository,
    ContentService,
    RevisionWriter,
    RevisionLifecycleService,
    SearchIndexRepository,
    SearchService,
    LinksRepository,
    LinksService,
    WebsiteImportService,
  ],
  exports: [RevisionLifecycleService, RevisionWriter, ContentRepository],
})
export class ContentModule {}
