import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContentModule } from '../content/content.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { RendererRevalidation } from './freshness/renderer-revalidation';
import { MovedPagesListener } from './redirects/moved-pages.listener';
import { SiteRedirect } from './redirects/site-redirect.entity';
import { SiteRedirectsController } from './redirects/site-redirects.controller';
import { SiteRedirectsRepository } from './redirects/site-redirects.repository';
import { SiteRedirectsService } from './redirects/site-redirects.service';
import { SiteSearchController } from './search/site-search.controller';
import { SiteSearchService } from './search/site-search.service';
import { SiteSearchRepository } from './search/site-search.repository';
import { SITE_REDIRECTS } from './site-redirects.port';
import { SitesModule } from './sites.module';

/**
 * What readers of published sites reach besides URL resolution: site redirects (and the old paths of
 * moved pages), site search, and the renderer's freshness. Global only to provide the `SITE_REDIRECTS`
 * port to URL resolution.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SiteRedirect]), SitesModule, ContentModule, SpaceWritesModule, OrganizationsModule],
  controllers: [SiteRedirectsController, SiteSearchController],
  providers: [
    SiteRedirectsRepository,
    SiteRedirectsService,
    MovedPagesListener,
    SiteSearchService,
    SiteSearchRepository,
    RendererRevalidation,
    { provide: SITE_REDIRECTS, useExisting: SiteRedirectsService },
  ],
  exports: [SITE_REDIRECTS],
})
export class SiteReadersModule {}
