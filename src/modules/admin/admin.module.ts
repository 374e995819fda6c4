import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AdminService } from './admin.service';

@Module({
  imports: [UsersModule, OrganizationsModule, TokensModule],
  providers: [AdminService],
  exports: [AdminService],
})
export class AdminModule {}
