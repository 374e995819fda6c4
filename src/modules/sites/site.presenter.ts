import { AppConfig } from '../../config/app-config';
import type { SpacePermissionsJson } from '../space-model/space-permissions';
import { presentSpace, SpaceJson } from '../space-model/space.presenter';
import type { SitePermissionsJson } from './site.policy';
import type { SectionGroupRow, SectionRow, SiteRow, SiteSpaceRow, StructureRow } from './site.read-model';
import type { SiteShareLink } from './site-share-link.entity';
import type { Site, SiteAgentsContext, SiteVisibility } from './site.entity';

export interface SiteJson {
  object: 'site';
  id: string;
  type: string;
  appliedType: string;
  title: string;
  hostname?: string;
  basename?: string;
  proxy?: { origin: string; target: string };
  visibility: SiteVisibility;
  defaultLevel: 'inherit';
  permissions: SitePermissionsJson;
  published: boolean;
  siteSpaces: number;
  createdAt: string;
  adaptiveContent: { enabled: boolean };
  ads: { status: 'pending'; submittable: boolean };
  agentsContext: SiteAgentsContext;
  features: { id: string; plan: string; frozen: boolean }[];
  urls: { location: string; app: string; preview: string; published?: string; login?: string; logout?: string };
}

export interface SiteSpaceJson {
  object: 'site-space';
  id: string;
  path: string;
  section?: string;
  space: SpaceJson;
  title: string;
  default: boolean;
  condition?: string;
  draft: false;
  hasAdvancedCustomizationFeature: false;
  urls: { published?: string };
}

export interface SiteSectionJson {
  object: 'site-section';
  id: string;
  title: string;
  description?: string;
  default: boolean;
  draft: false;
  path: string;
  condition?: string;
  sectionGroup?: string;
  siteSpaces: SiteSpaceJson[];
  urls: { published?: string };
  icon?: string;
}

export interface SiteSectionGroupJson {
  object: 'site-section-group';
  id: string;
  title: string;
  sections: SiteSectionJson[];
  children: SiteSectionJson[];
  draft: false;
  icon?: string;
}

export type SiteStructureJson =
  { type: 'sections'; structure: (SiteSectionJson | SiteSectionGroupJson)[] } | { type: 'siteSpaces'; structure: SiteSpaceJson[] };

export interface ShareLinkJson {
  object: 'share-link';
  id: string;
  name: string;
  key: string;
  active: boolean;
  createdAt: string;
  urls: { published: string };
}

/** What presenting the parts of one site needs: the caller's permissions on the spaces shown, and a checked share key. */
export interface SiteContext {
  site: Site;
  config: AppConfig;
  spacePermissions: Map<string, SpacePermissionsJson>;
  /** A key of an active share link of this site (checked by the service), or undefined. */
  shareKey?: string;
}

const sitePath = (site: Site) => `/v1/orgs/${site.organizationId}/sites/${site.id}`;

/**
 * Where readers find the site: its custom hostname when it has one (the whole path is the site's
 * there, as URL resolution reads it: no basename), else the web application's `/sites/{id}`; none
 * without either, and none until published. A `share-link` site's URLs only exist with a valid key,
 * which they carry.
 */
function publishedUrl(site: Site, config: AppConfig, shareKey: string | undefined, ...segments: (string | null)[]): string | undefined {
  if (!site.published) return undefined;
  const base = site.hostname ? `https://${site.hostname}` : config.appUrl ? `${config.appUrl}/sites/${site.id}` : undefined;
  if (!base) return undefined;
  const url = [base, ...segments.filter((segment): segment is string => !!segment).map(encodeURIComponent)].join('/');
  if (site.visibility !== 'share-link') return url;
  return shareKey ? `${url}?share=${encodeURIComponent(shareKey)}` : undefined;
}

export function presentSite({ site, siteSpaces }: SiteRow, permissions: SitePermissionsJson, config: AppConfig): SiteJson {
  const location = config.apiUrl(sitePath(site));
  const json: SiteJson = {
    object: 'site',
    id: site.id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    visibility: site.visibility,
    defaultLevel: 'inherit',
    permissions,
    published: site.published,
    siteSpaces,
    createdAt: site.createdAt.toISOString(),
    adaptiveContent: { enabled: site.adaptiveEnabled },
    // Quire serves no ads; a site can never be submitted for them.
    ads: { status: 'pending', submittable: false },
    agentsContext: site.agentsContext,
    features: site.adaptiveEnabled ? [{ id: 'sites-adaptive-content', plan: site.type, frozen: false }] : [],
    urls: {
      location,
      app: config.appLink(`/o/${site.organizationId}/sites/${site.id}`, sitePath(site)),
      preview: config.appLink(`/o/${site.organizationId}/sites/${site.id}/preview`, `${sitePath(site)}/published`),
    },
  };
  if (site.hostname) json.hostname = site.hostname;
  if (site.basename) json.basename = site.basename;
  if (site.proxyOrigin) json.proxy = { origin: site.proxyOrigin, target: config.appLink(`/sites/${site.id}`, `${sitePath(site)}/published`) };
  const published = publishedUrl(site, config, undefined);
  if (published) json.urls.published = published;
  return json;
}

/** The site with where its visitors log in and out (`urls.login`, `urls.logout`: the published profile's, from the publishing auth). */
export function withAuthUrls(json: SiteJson, auth: { login?: string; logout?: string }): SiteJson {
  return { ...json, urls: { ...json.urls, ...(auth.login ? { login: auth.login } : {}), ...(auth.logout ? { logout: auth.logout } : {}) } };
}

export function presentSiteSpace(row: SiteSpaceRow, context: SiteContext): SiteSpaceJson {
  const { siteSpace, space } = row;
  const permissions = context.spacePermissions.get(space.id) as SpacePermissionsJson;
  const json: SiteSpaceJson = {
    object: 'site-space',
    id: siteSpace.id,
    path: siteSpace.path,
    space: presentSpace(space, permissions, context.config),
    title: space.title || siteSpace.path,
    default: siteSpace.isDefault,
    draft: false,
    hasAdvancedCustomizationFeature: false,
    urls: {},
  };
  if (siteSpace.sectionId) json.section = siteSpace.sectionId;
  if (siteSpace.condition !== null) json.condition = siteSpace.condition;
  // The default site space of a level is served at the level's own path.
  const published = publishedUrl(context.site, context.config, context.shareKey, row.sectionPath, siteSpace.isDefault ? null : siteSpace.path);
  if (published) json.urls.published = published;
  return json;
}

export function presentSection({ section, siteSpaces }: SectionRow, context: SiteContext): SiteSectionJson {
  const json: SiteSectionJson = {
    object: 'site-section',
    id: section.id,
    title: section.title,
    default: section.isDefault,
    draft: false,
    path: section.path,
    siteSpaces: siteSpaces.map((row) => presentSiteSpace(row, context)),
    urls: {},
  };
  if (section.description !== null) json.description = section.description;
  if (section.condition !== null) json.condition = section.condition;
  if (section.groupId) json.sectionGroup = section.groupId;
  if (section.icon !== null) json.icon = section.icon;
  // The default section is served at the site's root (its path named explicitly only redirects there).
  const published = publishedUrl(context.site, context.config, context.shareKey, section.isDefault ? null : section.path);
  if (published) json.urls.published = published;
  return json;
}

export function presentSectionGroup({ group, sections }: SectionGroupRow, context: SiteContext): SiteSectionGroupJson {
  const presented = sections.map((row) => presentSection(row, context));
  const json: SiteSectionGroupJson = { object: 'site-section-group', id: group.id, title: group.title, sections: presented, children: presented, draft: false };
  if (group.icon !== null) json.icon = group.icon;
  return json;
}

export function presentStructure(structure: StructureRow, context: SiteContext): SiteStructureJson {
  if (structure.type === 'siteSpaces') return { type: 'siteSpaces', structure: structure.items.map((row) => presentSiteSpace(row, context)) };
  return {
    type: 'sections',
    structure: structure.items.map((item) => ('group' in item ? presentSectionGroup(item, context) : presentSection(item, context))),
  };
}

export function presentShareLink(link: SiteShareLink, site: Site, config: AppConfig): ShareLinkJson {
  return {
    object: 'share-link',
    id: link.id,
    name: link.name,
    key: link.key,
    active: link.active,
    createdAt: link.createdAt.toISOString(),
    urls: { published: config.appLink(`/sites/${site.id}?share=${link.key}`, `${sitePath(site)}/published?shareKey=${link.key}`) },
  };
}
