import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { SCRIPT_CALL_HEADER, scriptCallMarker } from '../../../common/rate-limit/script-call';
import { AppConfig } from '../../../config/app-config';
import type { IntegrationInstallation } from '../integration-installation.entity';
import type { Integration } from '../integration.entity';
import { IntegrationTokensService } from '../integration-tokens.service';
import { IntegrationsRepository } from '../integrations.repository';
import { scriptEnvironment, TargetInstallation } from './environment';
import { ScriptFailure, ScriptResult, ScriptSandbox } from './script-sandbox';

/** Headers a script may not set on its outbound requests (the guard and Node own them). */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'accept-encoding', 'te', 'trailer']);

export interface DispatchContext {
  installation?: IntegrationInstallation | null;
  target?: TargetInstallation | null;
  /** Body of the HTTP request a `fetch` event carries. */
  fetchBody?: Buffer;
}

/**
 * Calls an integration's script with one event: the multipart form `@gitbook/runtime` reads
 * (`event`, `environment`, `fetch-body`), fresh short-lived tokens, and either the sandbox or, in
 * development mode, the developer's tunnel (through the guarded outbound client).
 */
@Injectable()
export class ScriptDispatcher implements OnModuleInit {
  constructor(
    private readonly sandbox: ScriptSandbox,
    private readonly outbound: OutboundHttpClient,
    private readonly integrations: IntegrationsRepository,
    private readonly tokens: IntegrationTokensService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.sandbox.useOutbound((request) => this.scriptFetch(request));
  }

  async dispatch(integration: Integration, event: Record<string, unknown>, context: DispatchContext = {}): Promise<ScriptResult> {
    const stored = await this.integrations.script(integration.id);
    if (!stored) throw new ScriptFailure('crashed', 'the integration has no script');
    const installation = context.installation ?? null;
    // Without an installation there is nothing a token could reach: the integration token is then inert (401).
    const [integrationToken, installationToken] = await this.tokens.mint(integration.id, installation?.id ?? null, installation ? 2 : 1);
    const tokens: { integration: string; installation?: string } = { integration: integrationToken };
    if (installationToken) tokens.installation = installationToken;
    const environment = scriptEnvironment(this.config, integration, stored.signingSecret, tokens, installation, context.target);
    const form = new FormData();
    form.append('event', JSON.stringify(event));
    form.append('environment', JSON.stringify(environment));
    if (context.fetchBody && context.fetchBody.length > 0) form.append('fetch-body', new Blob([context.fetchBody]));
    const request = new Request('http://integration.quire.internal/v1', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const contentType = request.headers.get('content-type')!;

    if (this.devModeApplies(integration, installation)) return this.toTunnel(integration.devTunnelUrl!, body, contentType);
    return this.sandbox.call({ key: `${integration.id}:${integration.version}`, script: stored.script }, body, contentType);
  }

  /** Dev mode is on, not expired, and covers this call (the owner's organization, or everyone with `all`). */
  private devModeApplies(integration: Integration, installation: IntegrationInstallation | null): boolean {
    if (!integration.devTunnelUrl || !integration.devExpiresAt || integration.devExpiresAt.getTime() <= Date.now()) return false;
    return integration.devAll || !installation || installation.organizationId === integration.organizationId;
  }

  private async toTunnel(tunnelUrl: string, body: Buffer, contentType: string): Promise<ScriptResult> {
    const limits = this.sandbox.limits;
    if (body.length > limits.requestBytes) throw new ScriptFailure('too-large', `the request to the script is larger than ${limits.requestBytes} bytes`);
    try {
      const response = await this.outbound.get({
        url: tunnelUrl,
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
        maxBytes: limits.responseBytes,
        maxRedirects: 0,
      });
      const headers = Object.entries(response.headers).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
      );
      return { status: response.status, headers, body: response.body, logs: [] };
    } catch (error) {
      throw new ScriptFailure('crashed', `the development tunnel did not answer: ${(error as Error).message}`);
    }
  }

  /** A script's own `fetch`: through the guarded client (Quire's own API is always reachable). */
  private async scriptFetch(request: Request): Promise<Response> {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers[name] = value;
    });
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    if (new URL(request.url).origin === new URL(this.config.publicUrl).origin) {
      // Calls back to Quire (with the call's own tokens) need no guard: they reach only our API. Marked
      // as a script's, so the rate limits count them per installation, not as the server's own address.
      headers[SCRIPT_CALL_HEADER] = scriptCallMarker();
      const response = await fetch(request.url, { method: request.method, headers, body, redirect: 'manual' });
      return new Response(await response.arrayBuffer(), { status: response.status, headers: response.headers });
    }
    try {
      const response = await this.outbound.get({ url: request.url, method: request.method, headers, body, maxBytes: this.sandbox.limits.responseBytes });
      const out = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined && !['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name))
          out.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      return new Response(response.status === 204 || response.status === 304 ? null : response.body, { status: response.status, headers: out });
    } catch (error) {
      return new Response(`Quire refused or could not complete this request: ${(error as Error).message}`, { status: 502 });
    }
  }
}
