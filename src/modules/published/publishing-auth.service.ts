import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { Membership } from '../organizations/membership.entity';
import { SiteWrites } from '../sites/site-writes';
import type { UpdatePublishingAuthDto } from './dto/publishing-auth.dto';
import { SitePublishingAuth } from './site-publishing-auth.entity';

/** A fresh visitor-JWT key: 32 random bytes, base64url (an HS256 secret). */
const newKey = () => randomBytes(32).toString('base64url');

/**
 * A site's publishing auth (`getSitePublishingAuthById` and friends): admins only (the site policy's
 * `admin`), under the site row's lock. A site has one from the first time an admin reads or changes
 * it: the key is generated then, so there is always a key to show and to verify visitor JWTs with.
 */
@Injectable()
export class PublishingAuthService {
  constructor(private readonly writes: SiteWrites) {}

  get(caller: Membership, siteId: string): Promise<SitePublishingAuth> {
    return this.writes.run(caller, siteId, 'admin', (em, site) => this.ensure(em, site.id));
  }

  update(caller: Membership, siteId: string, dto: UpdatePublishingAuthDto): Promise<SitePublishingAuth> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const auth = await this.ensure(em, site.id);
      if (dto.backend !== undefined) auth.backend = dto.backend;
      if (dto.fallbackURL !== undefined) auth.fallbackUrl = dto.fallbackURL;
      if (dto.logoutURL !== undefined) auth.logoutUrl = dto.logoutURL;
      return em.save(SitePublishingAuth, auth);
    });
  }

  /** A new key: visitor JWTs signed with the old one stop opening the site at once. */
  regenerate(caller: Membership, siteId: string): Promise<SitePublishingAuth> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const auth = await this.ensure(em, site.id);
      auth.privateKey = newKey();
      return em.save(SitePublishingAuth, auth);
    });
  }

  private async ensure(em: EntityManager, siteId: string): Promise<SitePublishingAuth> {
    const found = await em.findOneBy(SitePublishingAuth, { siteId });
    if (found) return found;
    await em.insert(SitePublishingAuth, { siteId, privateKey: newKey(), backend: 'custom' });
    return em.findOneByOrFail(SitePublishingAuth, { siteId });
  }
}
