import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { integrationError } from './integration.errors';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsRepository } from './integrations.repository';
import { EventsService } from './events.service';
import type { TargetInstallation } from './runtime/environment.read-model';
import { ScriptFailure, ScriptResult } from './runtime/script-sandbox';

export interface IncomingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** Headers of the caller never handed to a script (credentials for Quire, hop-by-hop). */
const WITHHELD = new Set(['authorization', 'cookie', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-authorization']);

/** `urls.publicEndpoint`: an anonymous request, handed to the script's `fetch` handler as a `fetch` event. */
@Injectable()
export class PublicEndpointService {
  constructor(
    private readonly integrations: IntegrationsRepository,
    private readonly installations: InstallationsRepository,
    private readonly events: EventsService,
  ) {}

  /**
   * `siteId`: the public endpoint of a site installation (`…/installations/{id}/sites/{siteId}/public/`),
   * whose call carries that site installation (`environment.siteInstallation`, its signing secret):
   * where a visitor-auth integration's identity provider sends the visitor back.
   */
  async handle(name: string, installationId: string | null, request: IncomingRequest, siteId?: string): Promise<ScriptResult> {
    const integration = await this.integrations.findByName(name);
    if (!integration) throw integrationError('integration.not_found', `Integration ${name} not found`);
    const installation = installationId ? await this.installations.find(integration.id, installationId) : null;
    if (installationId && !installation) throw integrationError('integration.installation_not_found', `Installation ${installationId} not found`);
    let target: TargetInstallation | null = null;
    if (installation && siteId !== undefined) {
      const row = await this.installations.findTarget('site', installation.id, siteId);
      if (!row) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed on site ${siteId}`);
      target = { kind: 'site', targetId: siteId, status: row.status, configuration: row.configuration, externalIds: row.externalIds };
    }
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([key]) => !WITHHELD.has(key.toLowerCase())));
    const event = {
      eventId: newId(),
      type: 'fetch',
      ...(installation ? { installationId: installation.id } : {}),
      request: { method: request.method.toLowerCase(), url: request.url, headers },
    };
    try {
      return await this.events.traced(integration, event, { installation, target, fetchBody: request.body });
    } catch (error) {
      throw integrationError('integration.script_failed', error instanceof ScriptFailure ? error.message : 'the script failed');
    }
  }
}
