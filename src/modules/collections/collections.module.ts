import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { CollectionsController } from './collections.controller';
import { CollectionsRepository } from './collections.repository';
import { CollectionsService } from './collections.service';
import { ContentTreeRepository } from './content-tree.repository';
import { ContentTreeService } from './content-tree.service';
import { Collection } from '../space-model/collection.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Collection]), AccessModule, OrganizationsModule, SpaceWritesModule],
  controllers: [CollectionsController],
  providers: [CollectionsRepository, CollectionsService, ContentTreeRepository, ContentTreeService],
  exports: [ContentTreeService],
})
export class CollectionsModule {}
