import { Injectable } from '@nestjs/common';
import { noteAuditOrganization } from '../../common/audit/audit.context';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { newId } from '../../common/ids';
import type { Page } from '../../common/pagination/paginate';
import type { User } from '../users/user.entity';
import { ICON_MAX_BYTES, PublishIntegrationDto, SCRIPT_MAX_BYTES } from './dto/publish-integration.dto';
import type { ListIntegrationsQueryDto } from './dto/list-integrations-query.dto';
import { schemaProblem } from './configuration-schema';
import { manifestProblem } from './manifest-schema';
import { Integration } from './integration.entity';
import { integrationError } from './integration.errors';
import { CallerRoles, canView } from './integration.policy';
import type { IntegrationConfigurations } from './integration.read-model';
import { IntegrationsRepository, IntegrationWithOwner } from './integrations.repository';
import { ScriptSandbox } from './runtime/script-sandbox';

export interface Viewed<T> {
  value: T;
  roles: CallerRoles;
}

/** Publishing, discovery, unpublishing and development mode of integrations. */
@Injectable()
export class IntegrationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly integrations: IntegrationsRepository,
    private readonly sandbox: ScriptSandbox,
    private readonly config: AppConfig,
  ) {}

  roles(user: User): Promise<Map<string, import('../../common/roles').MemberRoleOrGuest>> {
    return this.integrations.callerRoles(user.id);
  }

  /** The integration by name as the caller may see it (404 when private to another organization). */
  async get(user: User, name: string): Promise<Viewed<IntegrationWithOwner>> {
    const roles = await this.integrations.callerRoles(user.id);
    const integration = await this.integrations.findByName(name);
    if (!integration || !canView(integration, roles)) throw integrationError('integration.not_found', `Integration ${name} not found`);
    const owner = await this.integrations.organization(integration.organizationId);
    if (!owner) throw integrationError('integration.not_found', `Integration ${name} not found`);
    return { value: { integration, owner }, roles };
  }

  /** The integration for an admin of its owner: 404 for those who cannot see it, 403 for the others. */
  async getAsAdmin(user: User, name: string, what = 'manage'): Promise<Viewed<IntegrationWithOwner>> {
    const viewed = await this.get(user, name);
    if (viewed.roles.get(viewed.value.integration.organizationId) !== 'admin') {
      throw integrationError('integration.publish_forbidden', `Only admins of the organization that owns ${name} can ${what} it`);
    }
    return viewed;
  }

  async list(user: User, query: ListIntegrationsQueryDto, onlyIds?: string[]): Promise<Viewed<Page<IntegrationWithOwner>>> {
    const roles = await this.integrations.callerRoles(user.id);
    const page = await this.integrations.list(roles, query, onlyIds);
    const owners = await this.integrations.owners([...new Set(page.items.map((i) => i.organizationId))]);
    return { value: { ...page, items: page.items.map((integration) => ({ integration, owner: owners.get(integration.organizationId)! })) }, roles };
  }

  /** Publishes a new integration, or the next version of one the caller's organization owns. */
  async publish(user: User, name: string, dto: PublishIntegrationDto): Promise<Viewed<IntegrationWithOwner>> {
    const roles = await this.integrations.callerRoles(user.id);
    const organizationId = dto.organization;
    if (!roles.has(organizationId)) throw integrationError('integration.not_found', `Organization ${organizationId} not found`);
    if (roles.get(organizationId) !== 'admin') {
      throw integrationError('integration.publish_forbidden', `Only admins of organization ${organizationId} can publish integrations`);
    }
    const fields = this.manifestFields(dto);
    const id = await this.dataSource.transaction(async (em) => {
      // Serialises publishes of one name (the row lock, or the advisory lock while it does not exist yet).
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('integrations:' || $1))`, [name]);
      const existing = await this.integrations.findByName(name, em, true);
      if (existing && existing.organizationId !== organizationId) {
        throw integrationError('integration.name_taken', `The name ${name} is taken by an integration of another organization`);
      }
      if (existing) {
        await this.integrations.save({ ...fields, id: existing.id, version: existing.version + 1, updatedAt: new Date() }, em);
        // Scopes are granted, not read live: fewer scopes take effect at once; more wait for an admin's consent.
        await em.query(
          `UPDATE integration_installations
              SET granted_scopes = COALESCE((SELECT jsonb_agg(s) FROM jsonb_array_elements_text(granted_scopes) s WHERE $2::jsonb ? s), '[]')
            WHERE integration_id = $1`,
          [existing.id, JSON.stringify(fields.scopes ?? [])],
        );
        return existing.id;
      }
      const created = newId();
      await this.integrations.save(
        { ...fields, id: created, name, organizationId, version: 1, signingSecret: randomBytes(32).toString('base64url'), devAll: false },
        em,
      );
      return created;
    });
    await this.sandbox.evict(`${id}:`);
    const integration = (await this.integrations.findById(id))!;
    const owner = (await this.integrations.organization(organizationId))!;
    return { value: { integration, owner }, roles };
  }

  /** Unpublishes: the integration, its installations everywhere, its events and tokens go (cascade). */
  async unpublish(user: User, name: string): Promise<void> {
    const { integration } = (await this.getAsAdmin(user, name, 'unpublish')).value;
    noteAuditOrganization(integration.organizationId);
    await this.dataSource.transaction((em) => this.integrations.delete(integration.id, em));
    await this.sandbox.evict(`${integration.id}:`);
  }

  async icon(name: string): Promise<Buffer> {
    const icon = await this.integrations.icon(name);
    if (!icon) throw integrationError('integration.not_found', `Integration ${name} has no icon`);
    return icon;
  }

  async previewImage(name: string, index: number): Promise<Buffer> {
    const image = Number.isInteger(index) && index >= 0 ? await this.integrations.previewImage(name, index) : null;
    if (!image) throw integrationError('integration.not_found', `Integration ${name} has no preview image ${index}`);
    return Buffer.from(image, 'base64');
  }

  /** `PUT …/dev`: events and renders of the owner (or everyone, with `all`) go to the tunnel until it expires. */
  async setDevMode(user: User, name: string, tunnelUrl: string, all: boolean): Promise<void> {
    const { integration } = (await this.getAsAdmin(user, name, 'develop')).value;
    noteAuditOrganization(integration.organizationId);
    await this.integrations.save(
      { id: integration.id, devTunnelUrl: tunnelUrl, devAll: all, devUserId: user.id, devExpiresAt: new Date(Date.now() + this.config.integrations.devModeMs) },
      this.dataSource.manager,
    );
  }

  async clearDevMode(user: User, name: string): Promise<void> {
    const { integration } = (await this.getAsAdmin(user, name, 'develop')).value;
    noteAuditOrganization(integration.organizationId);
    await this.integrations.save({ id: integration.id, devTunnelUrl: null, devAll: false, devUserId: null, devExpiresAt: null }, this.dataSource.manager);
  }

  private manifestFields(dto: PublishIntegrationDto): Partial<Integration> {
    if (Buffer.byteLength(dto.script, 'utf8') > SCRIPT_MAX_BYTES) {
      throw integrationError('integration.invalid_manifest', `script: must be at most ${SCRIPT_MAX_BYTES} bytes`);
    }
    const configurations = (dto.configurations ?? {}) as IntegrationConfigurations;
    for (const key of Object.keys(configurations)) {
      if (!['account', 'space', 'site'].includes(key))
        throw integrationError('integration.invalid_manifest', `configurations.${key}: unknown; use account, space or site`);
      const problem = schemaProblem(configurations[key as keyof IntegrationConfigurations]);
      if (problem) throw integrationError('integration.invalid_manifest', `configurations.${key}: ${problem}`);
    }
    const secrets = dto.secrets ?? {};
    const problem = manifestProblem({
      blocks: dto.blocks ?? [],
      contentSources: dto.contentSources ?? [],
      externalLinks: dto.externalLinks ?? [],
      secrets,
      ...(dto.contentSecurityPolicy !== undefined ? { contentSecurityPolicy: dto.contentSecurityPolicy } : {}),
    });
    if (problem) throw integrationError('integration.invalid_manifest', problem);
    let icon: Buffer | null = null;
    if (dto.icon) {
      icon = Buffer.from(dto.icon, 'base64');
      if (icon.length > ICON_MAX_BYTES) throw integrationError('integration.invalid_manifest', `icon: must be at most ${ICON_MAX_BYTES} bytes`);
      if (!imageType(icon)) throw integrationError('integration.invalid_manifest', 'icon: must be a PNG, JPEG, GIF, WebP or SVG image');
    }
    return {
      runtime: dto.runtime ?? 'v1',
      title: dto.title,
      description: dto.description,
      summary: dto.summary ?? null,
      visibility: dto.visibility ?? 'private',
      target: dto.target ?? 'all',
      scopes: dto.scopes,
      categories: dto.categories ?? [],
      blocks: (dto.blocks ?? []) as never,
      contentSources: dto.contentSources ?? [],
      externalLinks: dto.externalLinks ?? [],
      configurations,
      secrets,
      contentSecurityPolicy: dto.contentSecurityPolicy ?? null,
      events: [...new Set(dto.events ?? [])],
      icon,
      hasIcon: icon !== null,
      previewImages: dto.previewImages ?? [],
      previewCount: dto.previewImages?.length ?? 0,
      script: dto.script,
    };
  }
}

/** The image's media type from its first bytes, or null. */
export function imageType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (/^\s*(?:<\?xml[^>]*>\s*)?<svg[\s>]/i.test(bytes.subarray(0, 512).toString('utf8'))) return 'image/svg+xml';
  return null;
}
