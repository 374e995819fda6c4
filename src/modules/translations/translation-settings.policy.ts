import type { Membership } from '../organizations/membership.entity';

/** The `permissions` of translation settings, also used for the route checks. */
export interface TranslationSettingsPermissions {
  /** Any member but guests. */
  view: boolean;
  /** Organization admins: create, change and delete. */
  edit: boolean;
}

export function translationSettingsPermissions(membership: Pick<Membership, 'role'>): TranslationSettingsPermissions {
  return { view: membership.role !== null, edit: membership.role === 'admin' };
}
