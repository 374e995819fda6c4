import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Site } from './site.entity';

/** Docs sites: sites, site spaces, sections, share links, publishing (sections 4.9–4.12). */
@Module({
  imports: [TypeOrmModule.forFeature([Site])],
  exports: [TypeOrmModule],
})
export class SitesModule {}
