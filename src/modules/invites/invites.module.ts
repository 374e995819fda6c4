import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MembersModule } from '../members/members.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { InvitesController } from './invites.controller';
import { InvitesRepository } from './invites.repository';
import { InvitesService } from './invites.service';
import { OrganizationInvite } from './organization-invite.entity';
import { UserInvitesController } from './user-invites.controller';

@Module({
  imports: [TypeOrmModule.forFeature([OrganizationInvite]), OrganizationsModule, UsersModule, MembersModule],
  controllers: [InvitesController, UserInvitesController],
  providers: [InvitesService, InvitesRepository],
})
export class InvitesModule {}
