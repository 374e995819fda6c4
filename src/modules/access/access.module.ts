import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { AccessRepository } from './access.repository';
import { CollectionAccessService } from './collection-access.service';
import { CollectionPermissionsController } from './collection-permissions.controller';
import { GrantsRepository } from './grants.repository';
import { GrantsService } from './grants.service';
import { MemberSpacesController } from './member-spaces.controller';
import { MemberSpacesService } from './member-spaces.service';
import { SpaceAccessService } from './space-access.service';
import { SpacePermissionsController } from './space-permissions.controller';
import { TransferAccessService } from './transfer-access.service';

/**
 * The access model: effective levels on spaces and collections, the grants that feed them, and the
 * services every module uses to guard its routes (SpaceAccessService above all).
 */
@Module({
  imports: [OrganizationsModule, TeamsModule, UsersModule],
  controllers: [SpacePermissionsController, CollectionPermissionsController, MemberSpacesController],
  providers: [AccessRepository, SpaceAccessService, CollectionAccessService, TransferAccessService, GrantsRepository, GrantsService, MemberSpacesService],
  exports: [AccessRepository, SpaceAccessService, CollectionAccessService, TransferAccessService],
})
export class AccessModule {}
