import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MembersModule } from '../members/members.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { TeamMembersController } from './team-members.controller';
import { TeamMembersRepository } from './team-members.repository';
import { TeamMembersService } from './team-members.service';
import { TeamsController } from './teams.controller';
import { TeamsRepository } from './teams.repository';
import { TeamsService } from './teams.service';
import { TeamMember } from './team-member.entity';
import { Team } from './team.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Team, TeamMember]), OrganizationsModule, MembersModule, UsersModule],
  controllers: [TeamsController, TeamMembersController],
  providers: [TeamsRepository, TeamsService, TeamMembersRepository, TeamMembersService],
  exports: [TeamsRepository],
})
export class TeamsModule {}
