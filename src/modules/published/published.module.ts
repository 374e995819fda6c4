import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { SitesModule } from '../sites/sites.module';
import { SpaceWritesModule } from '../space-writes/space-writes.module';
import { PublishedRepository } from './published.repository';
import { PublishedService } from './published.service';
import { PublishingAuthController } from './publishing-auth.controller';
import { PublishingAuthService } from './publishing-auth.service';
import { SiteAuthModule } from './site-auth/site-auth.module';
import { CacheTagsGuard } from './site-auth/cache-tags.guard';
import { SiteTokenGuard } from './site-auth/site-token.guard';
import { SitePublishingAuth } from './site-publishing-auth.entity';
import { SnapshotFreshness } from './snapshot-freshness';
import { SnapshotEpoch } from './snapshot-epoch.port';
import { PublishingAuthRepository } from './publishing-auth.repository';
import { UrlsController } from './urls.controller';
import { SITE_AUTH_URLS } from '../sites/site-auth-urls.port';
import { SiteAuthUrlsProvider } from './site-auth-urls';

/**
 * Published sites as readers reach them (issue 26): URL resolution, visibility and visitor
 * authentication, publishing auth, and the guard that confines site API tokens. Sits above the sites
 * module (structure, share keys, the SITE_REDIRECTS port) and reads content only through its SQL.
 * Global only to provide sites' `SITE_AUTH_URLS` (sites cannot import this module).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([SitePublishingAuth]), AccessModule, OrganizationsModule, SitesModule, SpaceWritesModule, SiteAuthModule],
  controllers: [UrlsController, PublishingAuthController],
  providers: [
    SnapshotFreshness,
    { provide: SnapshotEpoch, useExisting: SnapshotFreshness },
    PublishedRepository,
    PublishedService,
    PublishingAuthService,
    PublishingAuthRepository,
    { provide: APP_GUARD, useClass: SiteTokenGuard },
    CacheTagsGuard,
    SiteAuthUrlsProvider,
    { provide: SITE_AUTH_URLS, useExisting: SiteAuthUrlsProvider },
  ],
  exports: [SITE_AUTH_URLS],
})
export class PublishedModule {}
