import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TeamsModule } from '../teams/teams.module';
import { SamlController } from './saml.controller';
import { SamlRepository } from './saml.repository';
import { SamlService } from './saml.service';

@Module({
  imports: [OrganizationsModule, TeamsModule],
  controllers: [SamlController],
  providers: [SamlRepository, SamlService],
})
export class SamlModule {}
