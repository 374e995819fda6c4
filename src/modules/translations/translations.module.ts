import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrganizationsModule } from '../organizations/organizations.module';
import { TranslationsController } from './translations.controller';
import { TranslationsRepository } from './translations.repository';
import { TranslationsService } from './translations.service';
import { TranslationSettings } from './translation-settings.entity';

@Module({
  imports: [TypeOrmModule.forFeature([TranslationSettings]), OrganizationsModule],
  controllers: [TranslationsController],
  providers: [TranslationsRepository, TranslationsService],
})
export class TranslationsModule {}
