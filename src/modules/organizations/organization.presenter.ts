import { AppConfig } from '../../config/app-config';
import type { MemberRoleOrGuest } from '../../common/roles';
import type { MergeRulesStandalone } from '../space-model/merge-rules';
import { Organization } from './organization.entity';
import { OrganizationPermissions } from './organization.policy';

/** `Organization` as the API shows it (section 2.20). Billing-only fields stay absent: Quire has no billing. */
export interface OrganizationJson {
  object: 'organization';
  id: string;
  title: string;
  createdAt: string;
  emailDomains: string[];
  hostname?: string;
  type: 'business' | 'community';
  useCase?: string;
  communityType?: string;
  defaultRole: MemberRoleOrGuest;
  defaultContent?: { type: 'site'; site: string };
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  plan: string;
  mergeRules: MergeRulesStandalone;
  urls: { location: string; app: string; logo?: string };
  trial: { status: 'notapplicable'; count: number };
  permissions: OrganizationPermissions;
}

export function presentOrganization(org: Organization, permissions: OrganizationPermissions, config: AppConfig): OrganizationJson {
  const json: OrganizationJson = {
    object: 'organization',
    id: org.id,
    title: org.title,
    createdAt: org.createdAt.toISOString(),
    emailDomains: org.emailDomains,
    type: org.type,
    defaultRole: org.defaultRole,
    sso: org.sso,
    ai: org.ai,
    inviteLinks: org.inviteLinks,
    // Self-hosted: every feature is available, nothing is billed, no trial applies.
    plan: 'free',
    mergeRules: org.mergeRules ?? { type: 'none' },
    urls: { location: config.apiUrl(`/v1/orgs/${org.id}`), app: config.appLink(`/o/${org.id}`, `/v1/orgs/${org.id}`) },
    trial: { status: 'notapplicable', count: 0 },
    permissions,
  };
  if (org.hostname) json.hostname = org.hostname;
  if (org.useCase) json.useCase = org.useCase;
  if (org.communityType) json.communityType = org.communityType;
  if (org.defaultSiteId) json.defaultContent = { type: 'site', site: org.defaultSiteId };
  if (org.logoUrl) json.urls.logo = org.logoUrl;
  return json;
}
