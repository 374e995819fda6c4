import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpacesModule } from '../spaces/spaces.module';
import { SiteSectionGroup } from './site-section-group.entity';
import { SiteSection } from './site-section.entity';
import { SiteSectionsController } from './site-sections.controller';
import { SiteShareLink } from './site-share-link.entity';
import { SiteSpace } from './site-space.entity';
import { SiteSpacesController } from './site-spaces.controller';
import { SiteSectionsService } from './site-sections.service';
import { SiteSpacesService } from './site-spaces.service';
import { SiteStructureRepository } from './site-structure.repository';
import { SiteStructureService } from './site-structure.service';
import { SiteWrites } from './site-writes';
import { Site } from './site.entity';
import { SitesController } from './sites.controller';
import { SitesRepository } from './sites.repository';
import { SitesService } from './sites.service';

/** Docs sites: sites, site spaces, sections, share links, publishing (sections 4.9–4.12). */
@Module({
  imports: [TypeOrmModule.forFeature([Site, SiteSpace, SiteSection, SiteSectionGroup, SiteShareLink]), AccessModule, OrganizationsModule, SpacesModule],
  controllers: [SitesController, SiteSpacesController, SiteSectionsController],
  providers: [SitesRepository, SiteStructureRepository, SiteWrites, SiteStructureService, SiteSpacesService, SiteSectionsService, SitesService],
  // URL resolution (the published module) reads the structure, share keys and site writes through these.
  exports: [TypeOrmModule, SitesRepository, SiteStructureService, SiteWrites],
})
export class SitesModule {}
