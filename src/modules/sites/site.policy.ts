import { MemberRoleOrGuest, roleAtLeast } from '../../common/roles';

/** `permissions` of a site (the public Site schema's eight booleans). */
export interface SitePermissionsJson {
  view: boolean;
  access: boolean;
  edit: boolean;
  create: boolean;
  admin: boolean;
  installIntegration: boolean;
  viewAdaptiveSchema: boolean;
  editAdaptiveSchema: boolean;
}

/**
 * What an organization role may do with the organization's sites. Members read sites; `create`
 * manages the content structure (site spaces, sections, groups, moves); `admin` changes the
 * settings, publishes, manages share links and the adaptive schema, creates and deletes sites.
 * Guests see no site (sites have no per-site grants in Quire).
 */
export function sitePermissions(role: MemberRoleOrGuest): SitePermissionsJson {
  const member = role !== null;
  const admin = roleAtLeast(role, 'admin');
  return {
    view: member,
    access: member,
    edit: roleAtLeast(role, 'edit'),
    create: roleAtLeast(role, 'create'),
    admin,
    installIntegration: admin,
    viewAdaptiveSchema: member,
    editAdaptiveSchema: admin,
  };
}

export type SiteAction = keyof SitePermissionsJson;
