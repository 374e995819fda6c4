import type { Membership } from '../organizations/membership.entity';

/**
 * SAML providers hold the organization's sign-in configuration: only admins see and manage them.
 * The SSO login list (labels and start URLs) is for any member but guests.
 */
export interface SamlProviderPermissions {
  view: boolean;
  manage: boolean;
}

export function samlProviderPermissions(membership: Pick<Membership, 'role'>): SamlProviderPermissions {
  const admin = membership.role === 'admin';
  return { view: admin, manage: admin };
}

export function canListSsoLogins(membership: Pick<Membership, 'role'>): boolean {
  return membership.role !== null;
}
