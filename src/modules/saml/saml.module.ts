import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TeamsModule } from '../teams/teams.module';
import { SamlController } from './saml.controller';
import { SamlRepository } from './saml.repository';
import { SamlService } from './saml.service';
import { SamlProvider } from './saml-provider.entity';

@Module({
  imports: [TypeOrmModule.forFeature([SamlProvider]), OrganizationsModule, TeamsModule],
  controllers: [SamlController],
  providers: [SamlRepository, SamlService],
})
export class SamlModule {}
