import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { newId } from '../../common/ids';
import { Page } from '../../common/pagination/paginate';
import { accessError } from '../access/access.errors';
import { SpaceAccessService } from '../access/space-access.service';
import type { Membership } from '../organizations/membership.entity';
import { Space } from '../space-model/space.entity';
import { SpacesService } from '../spaces/spaces.service';
import type { User } from '../users/user.entity';
import { adaptiveSchemaProblem, EMPTY_ADAPTIVE_SCHEMA, JsonObject, templateConditions, type VisitorClaims } from './adaptive-content';
import { siteSpaceCount, structureForAudience } from './audience-structure';
import { CreateShareLinkDto, CreateSiteDto, ListShareLinksQueryDto, ListSitesQueryDto, UpdateShareLinkDto, UpdateSiteDto } from './dto/site.dto';
import { customizationProblem, mergeSettings, Settings, siteCustomization, siteSpaceCustomization } from './site-customization';
import { SiteSpace } from './site-space.entity';
import { SiteShareLink } from './site-share-link.entity';
import { SiteStructureService, spacesOf } from './site-structure.service';
import { SiteWrites } from './site-writes';
import { siteError } from './site.errors';
import { Site } from './site.entity';
import type { SiteRow, SiteView, StructureRow } from './site.read-model';
import { SitesRepository } from './sites.repository';
import { SITE_SCRIPTS, type SiteScriptsSource } from './site-scripts.port';
import { SITE_AUTH_URLS, type SiteAuthUrls, type SiteAuthUrlsSource } from './site-auth-urls.port';

export interface AdaptiveSchemaRow {
  jsonSchema: JsonObject;
  updatedAt: Date;
}

export interface PublishedRow {
  site: SiteRow;
  structure: StructureRow;
  customizations: { site: Record<string, unknown>; siteSpaces: Record<string, Record<string, unknown>> };
  scripts: { script: string; contentSecurityPolicy?: string; cookies: boolean }[];
  /** Where visitors log in and out (`site.urls.login`, `urls.logout`), when the site's publishing auth says. */
  authUrls: SiteAuthUrls;
}

/** Sites: creation, settings, publishing, the adaptive schema, share links and the published profile. */
@Injectable()
export class SitesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sites: SitesRepository,
    private readonly writes: SiteWrites,
    private readonly structure: SiteStructureService,
    private readonly access: SpaceAccessService,
    private readonly spaces: SpacesService,
    @Optional() @Inject(SITE_SCRIPTS) private readonly siteScripts?: SiteScriptsSource,
    @Optional() @Inject(SITE_AUTH_URLS) private readonly authUrls?: SiteAuthUrlsSource,
  ) {}

  list(caller: Membership, query: ListSitesQueryDto): Promise<Page<SiteRow>> {
    return this.sites.list(caller.organizationId, query);
  }

  async get(caller: Membership, siteId: string): Promise<SiteRow> {
    await this.writes.read(caller, siteId);
    return this.row(caller, siteId);
  }

  private async row(caller: Membership, siteId: string, manager = this.dataSource.manager): Promise<SiteRow> {
    const row = await this.sites.find(caller.organizationId, siteId, manager);
    if (!row) throw siteError('site.not_found', `Site ${siteId} not found`);
    return row;
  }

  /**
   * A new site with the given spaces as root site spaces (in order; the first is the default) and,
   * with `createSpace`, a new space titled like the site: one transaction, so no partial site.
   */
  async create(user: User, caller: Membership, dto: CreateSiteDto): Promise<SiteRow> {
    this.writes.allow(caller, 'admin', 'new');
    const shown: Space[] = [];
    for (const spaceId of [...new Set(dto.spaces ?? [])]) {
      const { space } = await this.access.require(user, spaceId, 'view');
      if (space.organizationId !== caller.organizationId) throw accessError('space.not_found', `spaces: space ${spaceId} not found`);
      shown.push(space);
    }
    const title = dto.title ?? 'Untitled site';
    return this.dataSource.transaction(async (em) => {
      const id = newId();
      await this.sites.insertSite(
        { id, organizationId: caller.organizationId, title, createdBy: user.id, type: dto.type ?? 'basic', visibility: dto.visibility ?? 'public' },
        em,
      );
      if (dto.createSpace) {
        const spaceId = await this.spaces.createWithin(em, user, caller, { title: title.slice(0, 50) });
        shown.push(await this.sites.spaceById(spaceId, em));
      }
      for (const space of shown) await this.structure.insertSiteSpace(em, id, null, space);
      return this.row(caller, id, em);
    });
  }

  async update(caller: Membership, siteId: string, dto: UpdateSiteDto): Promise<SiteRow> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const changes: Partial<Omit<Site, 'adaptiveSchema' | 'customization'>> = {};
      if (dto.title !== undefined) changes.title = dto.title;
      if (dto.visibility !== undefined) changes.visibility = dto.visibility;
      if (dto.basename !== undefined) changes.basename = dto.basename;
      if (dto.hostname !== undefined) changes.hostname = dto.hostname;
      if (dto.adaptiveContent !== undefined) changes.adaptiveEnabled = dto.adaptiveContent.enabled;
      if (dto.agentsContext !== undefined) changes.agentsContext = dto.agentsContext;
      if (dto.proxy !== undefined) changes.proxyOrigin = dto.proxy;
      await this.sites.updateSite(site.id, changes, em);
      if (dto.defaultSiteSection !== undefined) await this.structure.makeDefaultSection(em, site.id, dto.defaultSiteSection);
      if (dto.defaultSiteSpace !== undefined) {
        const sections = await this.sites.sections(site.id, em);
        const level = sections.length === 0 ? null : (sections.find((section) => section.isDefault) ?? sections[0]).id;
        await this.structure.makeDefaultSiteSpace(em, site.id, level, dto.defaultSiteSpace);
      }
      return this.row(caller, site.id, em);
    });
  }

  /** Deletes the site; its site spaces, sections, groups and share links go with it (foreign keys). */
  async delete(caller: Membership, siteId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'admin', (em, site) => this.sites.deleteSite(site.id, em));
  }

  /** Publishing needs something to publish: at least one site space whose space is not deleted. */
  async publish(caller: Membership, siteId: string): Promise<SiteRow> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const { siteSpaces } = await this.row(caller, site.id, em);
      if (siteSpaces === 0) throw siteError('site.no_site_spaces', `Site ${siteId} has no site space: add a space before publishing it`);
      await this.sites.updateSite(site.id, { published: true }, em);
      return this.row(caller, site.id, em);
    });
  }

  async unpublish(caller: Membership, siteId: string): Promise<SiteRow> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      await this.sites.updateSite(site.id, { published: false }, em);
      return this.row(caller, site.id, em);
    });
  }

  // --- adaptive content --------------------------------------------------------------------------------

  async adaptiveSchema(caller: Membership, siteId: string): Promise<AdaptiveSchemaRow> {
    const site = await this.writes.read(caller, siteId, 'viewAdaptiveSchema');
    return { jsonSchema: site.adaptiveSchema ?? EMPTY_ADAPTIVE_SCHEMA, updatedAt: site.adaptiveSchemaUpdatedAt ?? site.createdAt };
  }

  /** Replaces the schema once it is a valid draft-07 object of boolean claims (else 400, nothing stored). */
  async setAdaptiveSchema(caller: Membership, siteId: string, jsonSchema: JsonObject): Promise<AdaptiveSchemaRow> {
    return this.writes.run(caller, siteId, 'editAdaptiveSchema', async (em, site) => {
      const problem = adaptiveSchemaProblem(jsonSchema);
      if (problem) throw siteError('site.invalid_adaptive_schema', problem);
      const updatedAt = new Date();
      await this.sites.setAdaptiveSchema(site.id, jsonSchema, updatedAt, em);
      return { jsonSchema, updatedAt };
    });
  }

  async templateConditions(caller: Membership, siteId: string) {
    const site = await this.writes.read(caller, siteId, 'viewAdaptiveSchema');
    return templateConditions(site.adaptiveSchema);
  }

  // --- share links ---------------------------------------------------------------------------------------

  async listShareLinks(caller: Membership, siteId: string, query: ListShareLinksQueryDto): Promise<{ site: Site; page: Page<SiteShareLink> }> {
    const site = await this.writes.read(caller, siteId, 'admin');
    return { site, page: await this.sites.listShareLinks(site.id, query) };
  }

  /** A new link with a fresh secret key (32 random bytes, base64url). */
  async createShareLink(caller: Membership, siteId: string, dto: CreateShareLinkDto): Promise<{ site: Site; link: SiteShareLink }> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const link = await this.sites.insertShareLink({ id: newId(), siteId: site.id, name: dto.name, key: randomBytes(32).toString('base64url') }, em);
      return { site, link };
    });
  }

  async updateShareLink(caller: Membership, siteId: string, linkId: string, dto: UpdateShareLinkDto): Promise<{ site: Site; link: SiteShareLink }> {
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const link = await this.sites.findShareLink(site.id, linkId, em);
      if (!link) throw siteError('site.share_link_not_found', `Share link ${linkId} not found`);
      const changes: Partial<Pick<SiteShareLink, 'name' | 'active'>> = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.active !== undefined) changes.active = dto.active;
      return { site, link: await this.sites.updateShareLink(link.id, changes, em) };
    });
  }

  async deleteShareLink(caller: Membership, siteId: string, linkId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'admin', async (em, site) => {
      if (!(await this.sites.deleteShareLink(site.id, linkId, em))) throw siteError('site.share_link_not_found', `Share link ${linkId} not found`);
    });
  }

  // --- customization -----------------------------------------------------------------------------------

  async customization(caller: Membership, siteId: string): Promise<Settings> {
    return siteCustomization(await this.writes.read(caller, siteId));
  }

  /** Replaces the site's settings; they must be complete and valid (400 naming the field, nothing stored). */
  async setCustomization(caller: Membership, siteId: string, body: unknown): Promise<Settings> {
    // Checked before the site is looked up: bad input is a 400 whatever the path names.
    const settings = this.checkedSettings(body);
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      await this.sites.setCustomization(site.id, settings, em);
      return settings;
    });
  }

  async siteSpaceCustomization(caller: Membership, siteId: string, siteSpaceId: string): Promise<Settings> {
    const site = await this.writes.read(caller, siteId);
    return siteSpaceCustomization(site, (await this.siteSpaceRow(site.id, siteSpaceId)).customization);
  }

  /**
   * Merges `body` into the site space's overrides (`null` resets a member to the site's value) and
   * answers the settings the site space ends up with, which must be valid.
   */
  async overrideSiteSpaceCustomization(caller: Membership, siteId: string, siteSpaceId: string, body: unknown): Promise<Settings> {
    if (body === undefined) throw siteError('site.invalid_customization', 'body is required');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw siteError('site.invalid_customization', 'body: must be a JSON object');
    return this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const row = await this.siteSpaceRow(site.id, siteSpaceId, em);
      const overrides = mergeSettings(row.customization ?? {}, body as Settings);
      const settings = siteSpaceCustomization(site, overrides);
      const problem = customizationProblem(settings);
      if (problem) throw siteError('site.invalid_customization', problem);
      await this.sites.setSiteSpaceCustomization(row.id, Object.keys(overrides).length > 0 ? overrides : null, em);
      return settings;
    });
  }

  async resetSiteSpaceCustomization(caller: Membership, siteId: string, siteSpaceId: string): Promise<void> {
    await this.writes.run(caller, siteId, 'admin', async (em, site) => {
      const row = await this.siteSpaceRow(site.id, siteSpaceId, em);
      await this.sites.setSiteSpaceCustomization(row.id, null, em);
    });
  }

  private checkedSettings(body: unknown): Settings {
    if (body === undefined) throw siteError('site.invalid_customization', 'body is required');
    const problem = customizationProblem(body);
    if (problem) throw siteError('site.invalid_customization', problem);
    return body as Settings;
  }

  private async siteSpaceRow(siteId: string, siteSpaceId: string, em = this.dataSource.manager): Promise<SiteSpace> {
    const row = await this.sites.findSiteSpaceRow(siteId, siteSpaceId, em);
    if (!row) throw siteError('site.space_not_found', `Site space ${siteSpaceId} not found`);
    return row;
  }

  // --- published profile -----------------------------------------------------------------------------------

  /** What a renderer needs to serve the site: the site, its structure, customizations and integration scripts. */
  /**
   * `getPublishedContentSite`. `claims`: the visitor's, when the caller reads as a visitor (a site API
   * token): the structure, its customizations and the site's count of site spaces then hold only what
   * the site shows that audience (`structureForAudience`). Null for a member, who sees it all.
   */
  async published(user: User, caller: Membership, siteId: string, shareKey?: string, claims: VisitorClaims | null = null): Promise<SiteView<PublishedRow>> {
    await this.writes.read(caller, siteId);
    let row = await this.row(caller, siteId);
    let structure = await this.structure.structure(row.site);
    if (claims !== null) {
      structure = structureForAudience(structure, claims);
      row = { ...row, siteSpaces: siteSpaceCount(structure) };
    }
    const shown = spacesOf(structure);
    const siteSpaceIds =
      structure.type === 'siteSpaces'
        ? structure.items.map((item) => item.siteSpace.id)
        : structure.items.flatMap((item) => ('group' in item ? item.sections : [item])).flatMap((section) => section.siteSpaces.map((s) => s.siteSpace.id));
    const overrides = new Map(
      (structure.type === 'siteSpaces'
        ? structure.items
        : structure.items.flatMap((item) => ('group' in item ? item.sections : [item])).flatMap((section) => section.siteSpaces)
      ).map((item) => [item.siteSpace.id, item.siteSpace.customization]),
    );
    const value: PublishedRow = {
      site: row,
      structure,
      customizations: {
        site: siteCustomization(row.site),
        siteSpaces: Object.fromEntries(siteSpaceIds.map((id) => [id, siteSpaceCustomization(row.site, overrides.get(id) ?? null)])),
      },
      scripts:
        (await this.siteScripts?.scriptsOf('site', siteId))?.map(({ script, contentSecurityPolicy, cookies }) => ({
          script,
          contentSecurityPolicy,
          cookies,
        })) ?? [],
      authUrls: (await this.authUrls?.authUrlsOf(siteId, row.site.organizationId)) ?? {},
    };
    return this.structure.view(user, row.site, value, shown, shareKey);
  }
}
