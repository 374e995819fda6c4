import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import type { SiteVisitorAuthSource, VisitorAuthBackend } from '../sites/visitor-auth.port';
import { integrationError } from './integration.errors';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsRepository } from './integrations.repository';
import { EventsService } from './events.service';
import { ScriptFailure, ScriptResult } from './runtime/script-sandbox';
import { targetSigningSecret } from './runtime/signing-secrets';

/** Query parameters of the login route handed to the script (`searchParams`): what identity providers' invitation flows use. */
export const VISITOR_AUTH_SEARCH_PARAMS = ['invitation', 'organization', 'login_hint', 'prompt', 'ui_locales', 'screen_hint'];
const MAX_PARAM_LENGTH = 2048;

/** What the login route received (`GET …/installations/{id}/sites/{siteId}/visitor-auth`). */
export interface VisitorAuthRequest {
  location?: string;
  action?: string;
  query: Record<string, unknown>;
}

/**
 * The integration backend of visitor authentication. `backendOf` (the `SITE_VISITOR_AUTH` port)
 * names the visitor-auth integration installed on a site, the site installation's signing secret
 * that its visitor JWTs are verified with, and Quire's login route; `login` answers that route by
 * calling the script with a `fetch_visitor_authentication` event (the script answers a redirect to
 * its identity provider, or for `action: "logout"` to wherever visitors log out).
 */
@Injectable()
export class VisitorAuthService implements SiteVisitorAuthSource {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly integrations: IntegrationsRepository,
    private readonly events: EventsService,
    private readonly config: AppConfig,
  ) {}

  async backendOf(siteId: string, organizationId: string): Promise<VisitorAuthBackend | null> {
    const [first] = await this.installations.visitorAuthOnSite(siteId, organizationId);
    if (!first) return null;
    const secret = await this.integrations.signingSecret(first.integrationId);
    if (secret === null) return null;
    return {
      integration: first.name,
      installationId: first.installationId,
      signingSecret: targetSigningSecret(secret, first.installationId, 'site', siteId),
      loginUrl: this.loginUrl(first.name, first.installationId, siteId),
    };
  }

  loginUrl(name: string, installationId: string, siteId: string): string {
    return this.config.apiUrl(
      `/v1/integrations/${encodeURIComponent(name)}/installations/${encodeURIComponent(installationId)}/sites/${encodeURIComponent(siteId)}/visitor-auth`,
    );
  }

  /**
   * The script's answer to `fetch_visitor_authentication` for this site. Only the site's visitor-auth
   * integration answers (another integration, installation or site: 404, as for an unknown one).
   */
  async login(name: string, installationId: string, siteId: string, request: VisitorAuthRequest): Promise<ScriptResult> {
    const integration = await this.integrations.findByName(name);
    const installation = integration ? await this.installations.find(integration.id, installationId) : null;
    const organizationId = installation ? await this.installations.siteOrganization(siteId) : null;
    const installed =
      organizationId === installation?.organizationId && organizationId !== null ? await this.installations.visitorAuthOnSite(siteId, organizationId) : [];
    if (!integration || !installation || !installed.some((row) => row.installationId === installation.id)) {
      throw integrationError('integration.installation_not_found', `Integration ${name} is not the visitor authentication of site ${siteId}`);
    }
    const row = await this.installations.findTarget('site', installation.id, siteId);
    if (!row) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed on site ${siteId}`);
    const searchParams: Record<string, string> = {};
    for (const name of VISITOR_AUTH_SEARCH_PARAMS) {
      const value = request.query[name];
      if (typeof value === 'string' && value.length <= MAX_PARAM_LENGTH) searchParams[name] = value;
    }
    const location = typeof request.location === 'string' ? request.location.slice(0, MAX_PARAM_LENGTH) : undefined;
    const event = {
      eventId: newId(),
      type: 'fetch_visitor_authentication',
      installationId: installation.id,
      siteId,
      ...(location !== undefined ? { location } : {}),
      searchParams,
      // The route is on Quire's API origin: no cookie there is the site's or the integration's to read.
      cookies: {},
      ...(request.action === 'logout' ? { action: 'logout' } : {}),
    };
    const target = { kind: 'site' as const, targetId: siteId, status: row.status, configuration: row.configuration, externalIds: row.externalIds };
    try {
      return await this.events.traced(integration, event, { installation, target });
    } catch (error) {
      throw integrationError('integration.script_failed', error instanceof ScriptFailure ? error.message : 'the script failed');
    }
  }
}
