import type { MemberRoleOrGuest } from '../../common/roles';
import type { Integration } from './integration.entity';

/** The caller's roles in the organizations they belong to (id → role; null: guest). */
export type CallerRoles = ReadonlyMap<string, MemberRoleOrGuest>;

export interface IntegrationPermissions {
  /** Publish a new version, unpublish, dev mode, read its events: admins of the owning organization. */
  admin: boolean;
  /** Install it: admins of some organization the integration may be installed in. */
  install: boolean;
}

/** Who sees an integration: public and unlisted ones are seen by everyone, private ones by the owner's members. */
export function canView(integration: Pick<Integration, 'visibility' | 'organizationId'>, roles: CallerRoles): boolean {
  return integration.visibility !== 'private' || roles.has(integration.organizationId);
}

export function integrationPermissions(integration: Pick<Integration, 'visibility' | 'organizationId'>, roles: CallerRoles): IntegrationPermissions {
  const admin = roles.get(integration.organizationId) === 'admin';
  const adminSomewhere = [...roles.values()].some((role) => role === 'admin');
  return { admin, install: integration.visibility === 'private' ? admin : adminSomewhere };
}

/** Whether an installation may be made at a target (`all` allows every target). */
export function targetAllowed(integrationTarget: string, wanted: 'organization' | 'space' | 'site'): boolean {
  return integrationTarget === 'all' || integrationTarget === wanted || (wanted === 'organization' && integrationTarget !== 'organization');
}
