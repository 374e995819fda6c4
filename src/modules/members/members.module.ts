import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { UsersModule } from '../users/users.module';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ServerSecretsRepository } from './server-secrets.repository';
import { VisitorClaimsService } from './visitor-claims.service';
import { ServerSecret } from './server-secret.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ServerSecret]), OrganizationsModule, UsersModule],
  controllers: [MembersController],
  providers: [MembersRepository, MembersService, ServerSecretsRepository, VisitorClaimsService],
  exports: [MembersRepository],
})
export class MembersModule {}
