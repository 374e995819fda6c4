import type { Membership } from '../organizations/membership.entity';
import { organizationPermissions } from '../organizations/organization.policy';

/** The `permissions` of a spec, also used for the route checks. */
export interface OpenApiSpecPermissions {
  /** Any member but guests reads the organization's specs. */
  view: boolean;
  /** Create, replace, change and delete specs: the organization's `createOpenAPISpec` (role create or above). */
  edit: boolean;
}

export function openApiSpecPermissions(membership: Pick<Membership, 'role'>): OpenApiSpecPermissions {
  return { view: membership.role !== null, edit: organizationPermissions({ membership }).createOpenAPISpec };
}
