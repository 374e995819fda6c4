import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { SearchIndexRepository } from '../content/search/search-index.repository';
import { SpaceUnitOfWork } from './space-unit-of-work';
import { SpaceWritesRepository } from './space-writes.repository';

/**
 * The write path of spaces (`SpaceUnitOfWork`), below the spaces, collections and content modules
 * that all write through it. It owns the search index's writer too: activating a revision rebuilds it.
 */
@Module({
  imports: [AccessModule],
  providers: [SpaceUnitOfWork, SpaceWritesRepository, SearchIndexRepository],
  exports: [SpaceUnitOfWork, SearchIndexRepository],
})
export class SpaceWritesModule {}
