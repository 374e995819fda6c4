import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { OrganizationMemberGuard } from './organization-member.guard';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';
import { Membership } from './membership.entity';
import { Organization } from './organization.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Organization, Membership]), UsersModule],
  controllers: [OrganizationsController],
  providers: [OrganizationsRepository, OrganizationsService, OrganizationMemberGuard],
  exports: [OrganizationsRepository, OrganizationsService, OrganizationMemberGuard],
})
export class OrganizationsModule {}
