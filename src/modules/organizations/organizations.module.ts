import { Module } from '@nestjs/common';
import { UsersModule } from '../users/users.module';
import { OrganizationMemberGuard } from './organization-member.guard';
import { OrganizationsController } from './organizations.controller';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

@Module({
  imports: [UsersModule],
  controllers: [OrganizationsController],
  providers: [OrganizationsRepository, OrganizationsService, OrganizationMemberGuard],
  exports: [OrganizationsRepository, OrganizationsService, OrganizationMemberGuard],
})
export class OrganizationsModule {}
