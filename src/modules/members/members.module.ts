import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { ServerSecretsRepository } from './server-secrets.repository';
import { VisitorClaimsService } from './visitor-claims.service';
import { ServerSecret } from './server-secret.entity';

@Module({
  imports: [TypeOrmModule.forFeature([ServerSecret]), OrganizationsModule],
  controllers: [MembersController],
  providers: [MembersRepository, MembersService, ServerSecretsRepository, VisitorClaimsService],
  exports: [MembersRepository],
})
export class MembersModule {}
