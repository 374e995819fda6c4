import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { InvitesController } from './invites.controller';
import { InvitesService } from './invites.service';

@Module({
  imports: [OrganizationsModule, UsersModule, MembersModule],
  controllers: [InvitesController],
  providers: [InvitesService],
})
export class InvitesModule {}
