import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpaceWritesModule } from '../spaces/space-writes.module';
import { CollectionsController } from './collections.controller';
import { CollectionsRepository } from './collections.repository';
import { CollectionsService } from './collections.service';
import { ContentTreeRepository } from './content-tree.repository';
import { ContentTreeService } from './content-tree.service';

@Module({
  imports: [AccessModule, OrganizationsModule, SpaceWritesModule],
  controllers: [CollectionsController],
  providers: [CollectionsRepository, CollectionsService, ContentTreeRepository, ContentTreeService],
  exports: [ContentTreeService],
})
export class CollectionsModule {}
