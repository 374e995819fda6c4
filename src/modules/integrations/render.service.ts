import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { decompressFromEncodedURIComponent } from 'lz-string';
import { newId } from '../../common/ids';
import { SpaceAccessService } from '../access/space-access.service';
import type { User } from '../users/user.entity';
import { RenderIntegrationDto } from './dto/render.dto';
import { integrationError } from './integration.errors';
import { InstallationsRepository } from './installations.repository';
import { IntegrationsService } from './integrations.service';
import { EventsService } from './events.service';
import { ScriptFailure } from './runtime/script-sandbox';

/** Renders an integration's component (a `ui_render` event) for a caller, in the context's organization. */
@Injectable()
export class RenderService {
  constructor(
    private readonly integrations: IntegrationsService,
    private readonly installations: InstallationsRepository,
    private readonly spaces: SpaceAccessService,
    private readonly events: EventsService,
  ) {}

  /** The GET form: `request` is the JSON body compressed with lz-string, as GitBook's renderer sends it. */
  async decode(compressed: string): Promise<RenderIntegrationDto> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(decompressFromEncodedURIComponent(compressed) ?? '');
    } catch {
      throw integrationError('integration.bad_render_request', 'request: must be LZ-compressed JSON (lz-string compressToEncodedURIComponent)');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw integrationError('integration.bad_render_request', 'request: must be a JSON object');
    const dto = plainToInstance(RenderIntegrationDto, parsed);
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length) {
      const first = errors[0];
      throw integrationError(
        'integration.bad_render_request',
        `request.${first.property}: ${Object.values(first.constraints ?? { invalid: 'is invalid' })[0]}`,
      );
    }
    return dto;
  }

  /**
   * The script's answer, and the `Cache-Control` it asked for: `setCache({ maxAge })` in
   * `@gitbook/runtime` answers `Cache-Control: max-age=N`, which becomes `private, max-age=N` (a render
   * is for its caller); without it, `no-store`.
   */
  async render(user: User, name: string, dto: RenderIntegrationDto): Promise<{ output: unknown; cacheControl: string }> {
    const { value, roles } = await this.integrations.get(user, name);
    const { integration } = value;
    const context = dto.context;
    const spaceId = typeof context.spaceId === 'string' ? context.spaceId : undefined;
    const siteId = typeof context.siteId === 'string' ? context.siteId : undefined;
    let organizationId = typeof context.organizationId === 'string' ? context.organizationId : undefined;
    if (spaceId) {
      // Rendering in a space needs the right to view it (404 outside, like the space itself).
      const access = await this.spaces.require(user, spaceId, 'view');
      organizationId = access.space.organizationId;
    } else if (siteId) {
      organizationId = (await this.installations.siteOrganization(siteId)) ?? undefined;
    }
    if (!organizationId || !roles.has(organizationId)) {
      throw integrationError('integration.bad_render_request', 'context: must name a space, site or organization of yours (spaceId, siteId or organizationId)');
    }
    const installation = await this.installations.findInOrganization(integration.id, organizationId);
    if (!installation) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed in organization ${organizationId}`);
    const target = spaceId ? await this.targetOf('space', installation.id, spaceId) : siteId ? await this.targetOf('site', installation.id, siteId) : null;
    const event = {
      eventId: newId(),
      type: 'ui_render',
      // The space or site is in `context` only: the public `UIRenderEvent` is one of a space, site or
      // installation event, and one with both `spaceId` and `installationId` would be two of them.
      installationId: installation.id,
      auth: { userId: user.id },
      componentId: dto.componentId,
      props: dto.props,
      state: dto.state,
      // `ContentKitContext` requires a theme; GitBook's renderer always sends one.
      context: { theme: 'light', ...context },
      action: dto.action,
    };
    let result;
    try {
      result = await this.events.traced(integration, event, { installation, target });
    } catch (error) {
      throw integrationError('integration.script_failed', error instanceof ScriptFailure ? error.message : 'the script failed');
    }
    const text = result.body.toString('utf8');
    if (result.status === 404) throw integrationError('integration.not_found', `Integration ${name} has no component ${dto.componentId}`);
    if (result.status < 200 || result.status >= 300)
      throw integrationError('integration.script_failed', `the script answered ${result.status}: ${text.slice(0, 300)}`);
    let output: unknown;
    try {
      output = JSON.parse(text) as unknown;
    } catch {
      throw integrationError('integration.script_failed', 'the script did not answer JSON');
    }
    return { output, cacheControl: cacheControlOf(result.headers) };
  }

  private async targetOf(kind: 'space' | 'site', installationId: string, targetId: string) {
    const row = await this.installations.findTarget(kind, installationId, targetId);
    return row ? { kind, targetId, status: row.status, configuration: row.configuration, externalIds: row.externalIds } : null;
  }
}

/** `private, max-age=N` for a script's `Cache-Control: max-age=N` (N a whole number of seconds, at most a day), else `no-store`. */
function cacheControlOf(headers: [string, string][]): string {
  const value = headers.find(([name]) => name.toLowerCase() === 'cache-control')?.[1] ?? '';
  const maxAge = /(?:^|[,\s])max-age=(\d{1,9})(?:$|[,\s])/i.exec(value)?.[1];
  if (maxAge === undefined || Number(maxAge) === 0) return 'no-store';
  return `private, max-age=${Math.min(Number(maxAge), 86_400)}`;
}
