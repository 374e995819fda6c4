import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { Membership } from '../organizations/membership.entity';
import { SiteWrites } from '../sites/site-writes';
import type { UpdatePublishingAuthDto } from './dto/publishing-auth.dto';
import type { SitePublishingAuth } from './site-publishing-auth.entity';
import { PublishingAuthRepository } from './publishing-auth.repository';
import { SITE_VISITOR_AUTH, type SiteVisitorAuthSource } from '../sites/visitor-auth.port';
import type { PublishingAuthView } from './publishing-auth.read-model';

/** A fresh visitor-JWT key: 32 random bytes, base64url (an HS256 secret). */
const newKey = () => randomBytes(32).toString('base64url');

/**
 * A site's publishing auth (`getSitePublishingAuthById` and friends): admins only (the site policy's
 * `admin`), under the site row's lock. A site has one from the first time an admin reads or changes
 * it: the key is generated then, so there is always a key to show and to verify visitor JWTs with.
 */
@Injectable()
export class PublishingAuthService {
  constructor(
    private readonly writes: SiteWrites,
    private readonly rows: PublishingAuthRepository,
    @Optional() @Inject(SITE_VISITOR_AUTH) private readonly visitorAuth?: SiteVisitorAuthSource,
  ) {}

  get(caller: Membership, siteId: string): Promise<PublishingAuthView> {
    return this.withIntegration(caller, siteId, (em, siteId) => this.ensure(em, siteId));
  }

  update(caller: Membership, siteId: string, dto: UpdatePublishingAuthDto): Promise<PublishingAuthView> {
    return this.withIntegration(caller, siteId, async (em, siteId) => {
      const auth = await this.ensure(em, siteId);
      if (dto.backend !== undefined) auth.backend = dto.backend;
      if (dto.fallbackURL !== undefined) auth.fallbackUrl = dto.fallbackURL;
      if (dto.logoutURL !== undefined) auth.logoutUrl = dto.logoutURL;
      return this.rows.save(auth, em);
    });
  }

  /** A new key: visitor JWTs signed with the old one stop opening the site at once. */
  regenerate(caller: Membership, siteId: string): Promise<PublishingAuthView> {
    return this.withIntegration(caller, siteId, async (em, siteId) => {
      const auth = await this.ensure(em, siteId);
      auth.privateKey = newKey();
      return this.rows.save(auth, em);
    });
  }

  private async withIntegration(
    caller: Membership,
    siteId: string,
    work: (em: EntityManager, siteId: string) => Promise<SitePublishingAuth>,
  ): Promise<PublishingAuthView> {
    const { auth, organizationId } = await this.writes.run(caller, siteId, 'admin', async (em, site) => ({
      auth: await work(em, site.id),
      organizationId: site.organizationId,
    }));
    const backend = (await this.visitorAuth?.backendOf(auth.siteId, organizationId)) ?? null;
    return { auth, integration: backend?.integration ?? null };
  }

  private async ensure(em: EntityManager, siteId: string): Promise<SitePublishingAuth> {
    return (await this.rows.find(siteId, em)) ?? this.rows.insert(siteId, newKey(), em);
  }
}
