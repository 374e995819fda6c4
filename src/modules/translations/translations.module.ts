import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TranslationsController } from './translations.controller';
import { TranslationsRepository } from './translations.repository';
import { TranslationsService } from './translations.service';

@Module({
  imports: [OrganizationsModule],
  controllers: [TranslationsController],
  providers: [TranslationsRepository, TranslationsService],
})
export class TranslationsModule {}
