import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { CollectionsModule } from '../collections/collections.module';
import { ContentModule } from '../content/content.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { Clock } from './clock';
import { CollectionSpacesController } from './collection-spaces.controller';
import { SpaceRetentionJob } from './space-retention.job';
import { SpaceRetentionService } from './space-retention.service';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { SpacesController } from './spaces.controller';
import { SpacesRepository } from './spaces.repository';
import { SpacesService } from './spaces.service';
import { Space } from '../space-model/space.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Space]), AccessModule, CollectionsModule, ContentModule, OrganizationsModule, SpaceWritesModule],
  controllers: [SpacesController, CollectionSpacesController],
  providers: [SpacesRepository, SpacesService, SpaceRetentionService, SpaceRetentionJob, Clock],
  exports: [SpacesService, SpaceRetentionService],
})
export class SpacesModule {}
