import type { MemberRoleOrGuest } from '../../common/roles';
import { AppConfig } from '../../config/app-config';
import { TeamJson } from '../teams/team.presenter';
import { SamlProvider, SamlProviderStatus } from './saml-provider.entity';

/** Where this server, as the SAML service provider, receives a provider's users; derived from PUBLIC_URL and the provider id. */
export function serviceProviderUrls(provider: Pick<SamlProvider, 'id'>, config: AppConfig) {
  return {
    acsURL: config.apiUrl(`/saml/${provider.id}/acs`),
    startURL: config.apiUrl(`/saml/${provider.id}/start`),
    entityID: config.apiUrl(`/saml/${provider.id}`),
  };
}

/** `SAML provider` as the API shows it (section 2.16). */
export interface SamlProviderJson {
  object: 'saml-provider';
  id: string;
  label: string;
  ssoURL: string;
  entityID: string;
  certificate: string;
  defaultTeam?: TeamJson;
  defaultRole: MemberRoleOrGuest;
  createdAt: string;
  status: SamlProviderStatus;
  service: { acsURL: string; startURL: string; entityID: string };
  urls: { location: string };
}

/**
 * What a `pending` provider shows for the fields it has not been given yet: the public schema requires
 * all three, so they are empty (and `about:blank`, the URI of nothing, for the sign-in URL).
 */
export const UNCONFIGURED = { entityID: '', certificate: '', ssoURL: 'about:blank' };

export function presentSamlProvider(provider: SamlProvider, defaultTeam: TeamJson | undefined, config: AppConfig): SamlProviderJson {
  const json: SamlProviderJson = {
    object: 'saml-provider',
    id: provider.id,
    label: provider.label,
    ssoURL: provider.ssoUrl ?? UNCONFIGURED.ssoURL,
    entityID: provider.entityId ?? UNCONFIGURED.entityID,
    certificate: provider.certificate ?? UNCONFIGURED.certificate,
    defaultRole: provider.defaultRole,
    createdAt: provider.createdAt.toISOString(),
    status: provider.status,
    service: serviceProviderUrls(provider, config),
    urls: { location: config.apiUrl(`/v1/orgs/${provider.organizationId}/saml/${provider.id}`) },
  };
  if (defaultTeam) json.defaultTeam = defaultTeam;
  return json;
}

/** SSO login info item (2.16): what a sign-in page needs to offer the provider. */
export interface SsoLoginJson {
  id: string;
  label: string;
  startURL: string;
}

export function presentSsoLogin(provider: SamlProvider, config: AppConfig): SsoLoginJson {
  return { id: provider.id, label: provider.label, startURL: serviceProviderUrls(provider, config).startURL };
}
