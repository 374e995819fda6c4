import { SemanticChangesRepository } from './semantic/semantic-changes.repository';
import { SemanticChangesService } from './semantic/semantic-changes.service';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../../common/outbound/outbound.module';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { ComputedPages } from './computed/computed-pages';
import { ContentController } from './content.controller';
import { ContentRepository } from './content.repository';
import { ContentService } from './content.service';
import { DocumentEvaluation } from './document-evaluation.service';
import { ImportController } from './import/import.controller';
import { WebsiteImportService } from './import/website-import.service';
import { LinksController } from './links/links.controller';
import { LinksRepository } from './links/links.repository';
import { LinksService } from './links/links.service';
import { RevisionLifecycleService } from './revision-lifecycle.service';
import { RevisionLifecycleRepository } from './revision-lifecycle.repository';
import { RevisionWriter } from './revision-writer';
import { RevisionDeltaWriter } from './revision-delta-writer';
import { RevisionsController } from './revisions.controller';
import { SearchController } from './search/search.controller';
import { SearchIndexRepository } from './search/search-index.repository';
import { SearchService } from './search/search.service';
import { Blob } from './blob.entity';
import { ContentDocument, DocumentSection } from './document.entity';
import { RevisionFile } from './revision-file.entity';
import { RevisionLink } from './revision-link.entity';
import { RevisionPage } from './revision-page.entity';
import { RevisionReusableContent } from './revision-reusable-content.entity';
import { Revision } from './revision.entity';
import { SearchPage } from './search/search-page.entity';
import { PurgeEmbedCacheJob } from './embeds/embed-cache-purge.job';
import { FillDocumentsJob } from './fill-documents.job';
import { DocumentsController } from './documents.controller';
import { EmbedsController } from './embeds/embeds.controller';
import { EmbedsRepository } from './embeds/embeds.repository';
import { EmbedsService } from './embeds/embeds.service';
import { FileUrlSigner } from './reader-files/file-url-signer';
import { ReaderFilesController } from './reader-files/reader-files.controller';
import { ReaderFilesRepository } from './reader-files/reader-files.repository';
import { ReaderFilesService } from './reader-files/reader-files.service';
import { GitSyncController } from './git-sync/git-sync.controller';
import { GitSyncRepository } from './git-sync/git-sync.repository';
import { GitSyncService } from './git-sync/git-sync.service';

/** Space content: revisions and their pages and files, website import, search, links. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Revision, RevisionPage, RevisionFile, RevisionReusableContent, RevisionLink, ContentDocument, DocumentSection, Blob, SearchPage]),
    AccessModule,
    OutboundModule,
    OrganizationsModule,
    SpaceWritesModule,
  ],
  controllers: [
    ContentController,
    RevisionsController,
    LinksController,
    SearchController,
    ImportController,
    ReaderFilesController,
    EmbedsController,
    GitSyncController,
    DocumentsController,
  ],
  providers: [
    ContentRepository,
    ContentService,
    DocumentEvaluation,
    ComputedPages,
    RevisionWriter,
    RevisionDeltaWriter,
    RevisionLifecycleService,
    RevisionLifecycleRepository,
    SearchIndexRepository,
    SearchService,
    LinksRepository,
    LinksService,
    WebsiteImportService,
    FileUrlSigner,
    ReaderFilesRepository,
    ReaderFilesService,
    EmbedsRepository,
    EmbedsService,
    PurgeEmbedCacheJob,
    GitSyncRepository,
    GitSyncService,
    SemanticChangesRepository,
    SemanticChangesService,
    FillDocumentsJob,
  ],
  exports: [
    RevisionLifecycleService,
    RevisionWriter,
    RevisionDeltaWriter,
    ContentRepository,
    ContentService,
    LinksService,
    WebsiteImportService,
    SearchIndexRepository,
    SemanticChangesService,
  ],
})
export class ContentModule {}
