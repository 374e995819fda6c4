import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SitePublishingAuth } from './site-publishing-auth.entity';

/** The queries of a site's publishing auth (one row per site, written under the site row's lock). */
@Injectable()
export class PublishingAuthRepository {
  find(siteId: string, em: EntityManager): Promise<SitePublishingAuth | null> {
    return em.findOneBy(SitePublishingAuth, { siteId });
  }

  /** A new row with its first key and the default backend; the row as stored. */
  async insert(siteId: string, privateKey: string, em: EntityManager): Promise<SitePublishingAuth> {
    await em.insert(SitePublishingAuth, { siteId, privateKey, backend: 'custom' });
    return em.findOneByOrFail(SitePublishingAuth, { siteId });
  }

  save(auth: SitePublishingAuth, em: EntityManager): Promise<SitePublishingAuth> {
    return em.save(SitePublishingAuth, auth);
  }
}
