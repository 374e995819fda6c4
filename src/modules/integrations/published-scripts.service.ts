import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import { integrationError } from './integration.errors';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsRepository } from './integrations.repository';
import { EventsService } from './events.service';
import { ScriptFailure, ScriptResult } from './runtime/script-sandbox';

/** One script a site (or a space) loads from an integration: `{ script, contentSecurityPolicy, cookies }`. */
export interface PublishedScript {
  integration: string;
  script: string;
  contentSecurityPolicy?: string;
  cookies: boolean;
}

/**
 * `fetch_published_script`: the scripts integrations inject into a site. `scriptsOf(site)` lists
 * them (the sites module shows them in the published profile; the lead wires it), and each URL is
 * answered by calling the script with a `fetch_published_script` event for that installation.
 * Integrations qualify when they are installed on the site (or all sites) and hold
 * `site:script:inject`; `cookies` follows `site:script:cookies`.
 */
@Injectable()
export class PublishedScriptsService {
  constructor(
    private readonly installations: InstallationsRepository,
    private readonly integrations: IntegrationsRepository,
    private readonly events: EventsService,
    private readonly config: AppConfig,
  ) {}

  async scriptsOf(kind: 'site' | 'space', targetId: string): Promise<PublishedScript[]> {
    const organizationId = kind === 'site' ? await this.installations.siteOrganization(targetId) : await this.installations.spaceOrganization(targetId);
    if (!organizationId) return [];
    const installed = kind === 'site' ? await this.installations.onSite(targetId, organizationId) : await this.installations.onSpace(targetId, organizationId);
    const scripts: PublishedScript[] = [];
    for (const { installationId, integrationId } of installed) {
      const integration = await this.integrations.findById(integrationId);
      if (!integration || !integration.scopes.includes('site:script:inject')) continue;
      const csp = integration.contentSecurityPolicy;
      scripts.push({
        integration: integration.name,
        script: this.config.apiUrl(`/v1/integrations/${integration.name}/installations/${installationId}/${kind}s/${targetId}/script.js`),
        ...(csp
          ? {
              contentSecurityPolicy:
                typeof csp === 'string'
                  ? csp
                  : Object.entries(csp)
                      .map(([k, v]) => `${k} ${v}`)
                      .join('; '),
            }
          : {}),
        cookies: integration.scopes.includes('site:script:cookies'),
      });
    }
    return scripts;
  }

  /** The script itself: the integration's answer to `fetch_published_script` for this installation and site. */
  async fetch(name: string, installationId: string, kind: 'site' | 'space', targetId: string): Promise<ScriptResult> {
    const integration = await this.integrations.findByName(name);
    const installation = integration ? await this.installations.find(integration.id, installationId) : null;
    if (!integration || !installation) throw integrationError('integration.installation_not_found', `Installation ${installationId} not found`);
    const covered = (
      kind === 'site'
        ? await this.installations.onSite(targetId, installation.organizationId)
        : await this.installations.onSpace(targetId, installation.organizationId)
    ).some((i) => i.installationId === installation.id);
    if (!covered) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed on ${kind} ${targetId}`);
    const row = await this.installations.findTarget(kind, installation.id, targetId);
    // Covered through `*_selection: all` without a row of its own: no space/site installation to hand over.
    const target = row ? { kind, targetId, status: row.status, configuration: row.configuration, externalIds: row.externalIds } : null;
    const event = { eventId: newId(), type: 'fetch_published_script', installationId: installation.id, [`${kind}Id`]: targetId };
    try {
      return await this.events.traced(integration, event, { installation, target });
    } catch (error) {
      throw integrationError('integration.script_failed', error instanceof ScriptFailure ? error.message : 'the script failed');
    }
  }
}
