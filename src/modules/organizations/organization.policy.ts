import { roleAtLeast } from '../../common/roles';
import type { Membership } from './membership.entity';

/** What the caller may do with an organization: the `permissions` object and the route checks alike. */
export interface OrganizationPermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
  listInstallations: boolean;
  installIntegration: boolean;
}

export interface OrganizationCaller {
  membership: Pick<Membership, 'role'>;
  /** Whether the caller owns at least one team of the organization. */
  ownsTeam?: boolean;
}

export function organizationPermissions({ membership, ownsTeam = false }: OrganizationCaller): OrganizationPermissions {
  const { role } = membership;
  const member = role !== null;
  const admin = role === 'admin';
  return {
    view: true,
    access: true,
    admin,
    ownTeam: ownsTeam,
    createContent: roleAtLeast(role, 'create'),
    createOpenAPISpec: roleAtLeast(role, 'create'),
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: member,
    listTeams: member,
    listIntegrations: member,
    listInstallations: admin,
    installIntegration: admin,
  };
}
