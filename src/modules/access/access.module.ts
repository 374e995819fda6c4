import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TeamsModule } from '../teams/teams.module';
import { UsersModule } from '../users/users.module';
import { AccessRepository } from './access.repository';
import { CollectionAccessService } from './collection-access.service';
import { GrantsRepository } from './grants.repository';
import { GrantsService } from './grants.service';
import { MemberSpacesController } from './member-spaces.controller';
import { MemberSpacesService } from './member-spaces.service';
import { SpaceAccessService } from './space-access.service';
import { CollectionPermissionsController, SpacePermissionsController } from './permissions.controller';
import { TransferAccessService } from './transfer-access.service';
import { PermissionGrant } from './permission-grant.entity';

/**
 * The access model: effective levels on spaces and collections, the grants that feed them, and what
 * routes declare to be guarded (`@SpaceAction`, `@CollectionAction`: `route-access.guard.ts`, which
 * resolves access through SpaceAccessService and CollectionAccessService).
 */
@Module({
  imports: [TypeOrmModule.forFeature([PermissionGrant]), OrganizationsModule, TeamsModule, UsersModule],
  controllers: [SpacePermissionsController, CollectionPermissionsController, MemberSpacesController],
  providers: [AccessRepository, SpaceAccessService, CollectionAccessService, TransferAccessService, GrantsRepository, GrantsService, MemberSpacesService],
  exports: [AccessRepository, SpaceAccessService, CollectionAccessService, TransferAccessService],
})
export class AccessModule {}
