import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { SCRIPT_CALL_HEADER, scriptCallMarker } from '../../../common/rate-limit/script-call';
import { AppConfig } from '../../../config/app-config';
import { InstallationsRepository } from '../installations.repository';
import type { IntegrationInstallation } from '../integration-installation.entity';
import type { Integration } from '../integration.entity';
import { IntegrationTokensService } from '../integration-tokens.service';
import { IntegrationsRepository } from '../integrations.repository';
import { SCRIPT_ENVIRONMENT, type ScriptEnvironmentShaper, type TargetInstallation } from './environment.read-model';
import { ScriptFailure, ScriptResult, ScriptSandbox } from './script-sandbox';
import { FETCH_ERROR_HEADER } from './script-wrapper';

/** Statuses whose answers have no body (a `Response` refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);
/** Headers of an answer not handed back to the script (the body is handed over decoded and whole). */
const ANSWER_HOP_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', FETCH_ERROR_HEADER]);

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
    private readonly installations: InstallationsRepository,
    private readonly tokens: IntegrationTokensService,
    private readonly config: AppConfig,
    @Inject(SCRIPT_ENVIRONMENT) private readonly environment: ScriptEnvironmentShaper,
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
    const owner = await this.integrations.organization(integration.organizationId);
    if (!owner) throw new ScriptFailure('crashed', 'the integration has no owner');
    const spaces = installation ? ((await this.installations.spacesCount([installation.id])).get(installation.id) ?? 0) : 0;
    const environment = this.environment.shape({ integration, owner, installation, spaces, target: context.target }, stored.signingSecret, tokens);
    const form = new FormData();
    form.append('event', JSON.stringify(event));
    form.append('environment', JSON.stringify(environment));
    if (context.fetchBody && context.fetchBody.length > 0) form.append('fetch-body', new Blob([context.fetchBody]));
    const request = new Request('http://integration.quire.internal/v1', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const contentType = request.headers.get('content-type')!;

    if (this.devModeApplies(integration, installation)) return this.toTunnel(integration.devTunnelUrl!, body, contentType);
    // One process per organization: what a call leaves in the script's globals stays in its organization.
    const key = `${integration.id}:${integration.version}:${installation?.organizationId ?? '-'}`;
    return this.sandbox.call({ key, script: stored.script }, body, contentType);
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

  /**
   * A script's own `fetch`: through the guarded client (Quire's own API is always reachable). Answers
   * reach the script as they are (204 and 205 included, without a body); a request that could not be
   * made rejects the script's `fetch` with a `TypeError` (the entry module turns the marker header into
   * it), never an error page with the server's stack.
   */
  private async scriptFetch(request: Request): Promise<Response> {
    try {
      return await this.forward(request);
    } catch (error) {
      const reason = String((error as Error)?.message ?? error)
        .replace(/[\r\n]+/g, ' ')
        .slice(0, 300);
      return new Response(null, { status: 599, headers: { [FETCH_ERROR_HEADER]: `fetch failed: ${reason}` } });
    }
  }

  private async forward(request: Request): Promise<Response> {
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
      const out = new Headers();
      response.headers.forEach((value, name) => {
        if (!ANSWER_HOP_HEADERS.has(name)) out.set(name, value);
      });
      const bytes = await response.arrayBuffer();
      return new Response(NULL_BODY.has(response.status) ? null : bytes, { status: response.status, headers: out });
    }
    const response = await this.outbound.get({ url: request.url, method: request.method, headers, body, maxBytes: this.sandbox.limits.responseBytes });
    const out = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !ANSWER_HOP_HEADERS.has(name)) out.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return new Response(NULL_BODY.has(response.status) ? null : response.body, { status: response.status, headers: out });
  }
}
