import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ServerSecretsRepository } from './server-secrets.repository';
import { VisitorClaimsService } from './visitor-claims.service';

@Module({
  imports: [OrganizationsModule, UsersModule],
  controllers: [MembersController],
  providers: [MembersRepository, MembersService, ServerSecretsRepository, VisitorClaimsService],
  exports: [MembersRepository],
})
export class MembersModule {}
