import { All, Controller, Get, Param, Req, Res } from '@nestjs/common';
import { NotForScripts } from '../../common/access/script-access';
import { NotForSiteTokens } from '../../common/access/site-access';
import { integrationError } from './integration.errors';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/public.decorator';
import { AppConfig } from '../../config/app-config';
import { IntegrationNamePipe } from './integration-name.pipe';
import { PublicEndpointService } from './public-endpoint.service';
import { PublishedScriptsService } from './published-scripts.service';
import type { ScriptResult } from './runtime/script-sandbox';
import { VisitorAuthService } from './visitor-auth.service';

/** Response headers a script may not set on Quire's origin. */
const DROPPED = new Set(['set-cookie', 'content-length', 'transfer-encoding', 'connection', 'strict-transport-security']);

/**
 * The integrations' public endpoints (anonymous: an iframe, a webhook receiver, assets), answered by
 * the script's `fetch` handler. Not in the OpenAPI document: the script decides what it serves.
 */
@ApiExcludeController()
@Public()
@NotForScripts()
@NotForSiteTokens()
@Controller('v1/integrations/:integrationName')
export class PublicEndpointController {
  constructor(
    private readonly endpoint: PublicEndpointService,
    private readonly scripts: PublishedScriptsService,
    private readonly config: AppConfig,
    private readonly visitorLogins: VisitorAuthService,
  ) {}

  /** A script injected into a site (`fetch_published_script`); the URL comes from PublishedScriptsService.scriptsOf. */
  @Get('installations/:installationId/:kind/:targetId/script.js')
  async publishedScript(
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') installationId: string,
    @Param('kind') kind: string,
    @Param('targetId') targetId: string,
    @Res() res: Response,
  ): Promise<void> {
    if (kind !== 'sites' && kind !== 'spaces') throw integrationError('integration.not_found', 'Not found');
    const result = await this.scripts.fetch(name, installationId, kind === 'sites' ? 'site' : 'space', targetId);
    // Loaded by a `<script>` of a docs site on another origin: readable cross-origin, and a script by its type (nosniff).
    res.setHeader('Content-Type', result.status >= 200 && result.status < 300 ? 'application/javascript; charset=utf-8' : 'text/plain; charset=utf-8');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', result.status >= 200 && result.status < 300 ? 'public, max-age=60' : 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(result.status).end(result.body);
  }

  @All(['public', 'public/*path'])
  async integration(@Param('integrationName', IntegrationNamePipe) name: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    send(res, await this.endpoint.handle(name, null, this.incoming(req)));
  }

  @All(['installations/:installationId/public', 'installations/:installationId/public/*path'])
  async installation(
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') installationId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    send(res, await this.endpoint.handle(name, installationId, this.incoming(req)));
  }

  /** A site installation's public endpoint (`IntegrationSiteInstallation.urls.publicEndpoint`): the call carries the site installation. */
  @All(['installations/:installationId/sites/:siteId/public', 'installations/:installationId/sites/:siteId/public/*path'])
  async siteInstallation(
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') installationId: string,
    @Param('siteId') siteId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    send(res, await this.endpoint.handle(name, installationId, this.incoming(req), siteId));
  }

  /**
   * Visitor authentication through an integration (`backend: "integration"`): where URL resolution
   * sends a visitor without a valid JWT (`?location=<path in the site>`) and where the site's
   * `urls.login` / `urls.logout` (`?action=logout`) point. The script's answer to
   * `fetch_visitor_authentication` (a redirect to its identity provider) is answered to the browser.
   */
  @Get('installations/:installationId/sites/:siteId/visitor-auth')
  async visitorAuth(
    @Param('integrationName', IntegrationNamePipe) name: string,
    @Param('installationId') installationId: string,
    @Param('siteId') siteId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const query = req.query as Record<string, unknown>;
    const result = await this.visitorLogins.login(name, installationId, siteId, {
      location: typeof query.location === 'string' ? query.location : undefined,
      action: typeof query.action === 'string' ? query.action : undefined,
      query,
    });
    res.setHeader('Cache-Control', 'no-store');
    send(res, result);
  }

  private incoming(req: Request) {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    return { method: req.method, url: this.config.apiUrl(req.originalUrl), headers, body: Buffer.isBuffer(req.body) ? req.body : undefined };
  }
}

/** The sandbox every public-endpoint answer runs in (an opaque origin: the API's origin stays out of reach). */
export const PUBLIC_ENDPOINT_SANDBOX = 'sandbox allow-scripts allow-forms allow-popups';

/**
 * The script's answer, with the headers it may set. The server's own security headers (set before the
 * route) are replaced: the CSP is the sandbox, after the script's own policy when it sent one, and there
 * is no `X-Frame-Options`, so the editor can frame a block's page.
 */
function send(res: Response, result: ScriptResult): void {
  res.removeHeader('Content-Security-Policy');
  res.removeHeader('X-Frame-Options');
  let csp: string | undefined;
  for (const [name, value] of result.headers) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || lower === 'x-frame-options') continue;
    if (lower === 'content-security-policy') csp = csp ? `${csp}, ${value}` : value;
    else res.setHeader(name, value);
  }
  // Ours is a policy of its own: every policy is enforced, so a script's own `sandbox allow-same-origin` cannot lift it.
  res.setHeader('Content-Security-Policy', csp ? `${csp}, ${PUBLIC_ENDPOINT_SANDBOX}` : PUBLIC_ENDPOINT_SANDBOX);
  res.status(result.status).end(result.body);
}
