import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { SpaceUnitOfWork } from './space-unit-of-work';
import { SpaceWritesRepository } from './space-writes.repository';
import { SearchIndexWritesRepository } from './search-index-writes.repository';
import { SearchTablesJob } from './search-tables.job';
import { SearchTablesRepository } from './search-tables.repository';

/**
 * The write path of spaces (`SpaceUnitOfWork`), below the spaces, collections and content modules
 * that all write through it. It owns the search index's writer too (`SearchIndexWritesRepository`):
 * activating a revision rebuilds the space's rows; `SearchTablesJob` drops the tables large rebuilds retired.
 */
@Module({
  imports: [AccessModule],
  providers: [SpaceUnitOfWork, SpaceWritesRepository, SearchIndexWritesRepository, SearchTablesJob, SearchTablesRepository],
  exports: [SpaceUnitOfWork, SearchIndexWritesRepository],
})
export class SpaceWritesModule {}
