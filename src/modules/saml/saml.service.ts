import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { Membership } from '../organizations/membership.entity';
import { TeamsRepository } from '../teams/teams.repository';
import { CreateSamlProviderDto, UpdateSamlProviderDto } from './dto/saml-provider.dto';
import { SamlProvider } from './saml-provider.entity';
import { canListSsoLogins, samlProviderPermissions } from './saml-provider.policy';
import { SamlProviderRow } from './saml-provider.read-model';
import { SamlRepository } from './saml.repository';
import { samlError } from './saml.errors';

@Injectable()
export class SamlService {
  constructor(
    private readonly providers: SamlRepository,
    private readonly teams: TeamsRepository,
  ) {}

  async list(caller: Membership, query: ListQueryDto): Promise<Page<SamlProviderRow>> {
    this.mayView(caller);
    const page = await this.providers.list(caller.organizationId, query);
    const teamIds = [...new Set(page.items.map((provider) => provider.defaultTeamId).filter((id): id is string => id !== null))];
    const teams = await this.teams.findMany(caller.organizationId, teamIds, caller.userId);
    return {
      ...page,
      items: page.items.map((provider) => ({ provider, defaultTeam: provider.defaultTeamId ? teams.get(provider.defaultTeamId) : undefined })),
    };
  }

  async get(caller: Membership, id: string): Promise<SamlProviderRow> {
    this.mayView(caller);
    return this.withTeam(caller, await this.found(caller, id));
  }

  /**
   * Only `label` is required (section 4.15): a provider without entity ID, certificate or sign-in URL
   * is `pending` (the status is computed by the database) until PATCH completes it.
   */
  async create(caller: Membership, dto: CreateSamlProviderDto): Promise<SamlProviderRow> {
    this.mayManage(caller);
    await this.checkTeam(caller, dto.defaultTeam);
    const id = newId();
    await this.providers.insert({
      id,
      organizationId: caller.organizationId,
      label: dto.label,
      entityId: dto.entityID ?? null,
      certificate: dto.certificate ?? null,
      ssoUrl: dto.ssoURL ?? null,
      defaultTeamId: dto.defaultTeam ?? null,
      defaultRole: dto.defaultRole ?? null,
    });
    return this.get(caller, id);
  }

  async update(caller: Membership, id: string, dto: UpdateSamlProviderDto): Promise<SamlProviderRow> {
    this.mayManage(caller);
    await this.found(caller, id);
    await this.checkTeam(caller, dto.defaultTeam);
    const changes: Partial<SamlProvider> = {};
    if (dto.label !== undefined) changes.label = dto.label;
    if (dto.entityID !== undefined) changes.entityId = dto.entityID;
    if (dto.certificate !== undefined) changes.certificate = dto.certificate;
    if (dto.ssoURL !== undefined) changes.ssoUrl = dto.ssoURL;
    if (dto.defaultTeam !== undefined) changes.defaultTeamId = dto.defaultTeam;
    if (dto.defaultRole !== undefined) changes.defaultRole = dto.defaultRole;
    await this.providers.update(id, changes);
    return this.get(caller, id);
  }

  async delete(caller: Membership, id: string): Promise<void> {
    this.mayManage(caller);
    await this.found(caller, id);
    await this.providers.delete(id);
  }

  /** What a sign-in page offers: every active provider's label and start URL. */
  async ssoLogins(caller: Membership): Promise<SamlProvider[]> {
    if (!canListSsoLogins(caller)) throw samlError('saml.list_forbidden', 'Guests cannot list the SSO providers');
    return this.providers.listActive(caller.organizationId);
  }

  private mayView(caller: Membership): void {
    if (!samlProviderPermissions(caller).view) throw samlError('saml.view_forbidden', 'Only organization admins can see SAML providers');
  }

  private mayManage(caller: Membership): void {
    if (!samlProviderPermissions(caller).manage) throw samlError('saml.manage_forbidden', 'Only organization admins can manage SAML providers');
  }

  private async found(caller: Membership, id: string): Promise<SamlProvider> {
    const provider = await this.providers.find(caller.organizationId, id);
    if (!provider) throw samlError('saml.not_found', `SAML provider ${id} not found`);
    return provider;
  }

  private async withTeam(caller: Membership, provider: SamlProvider): Promise<SamlProviderRow> {
    const defaultTeam = provider.defaultTeamId
      ? ((await this.teams.find(caller.organizationId, provider.defaultTeamId, caller.userId)) ?? undefined)
      : undefined;
    return { provider, defaultTeam };
  }

  private async checkTeam(caller: Membership, teamId: string | null | undefined): Promise<void> {
    if (teamId && !(await this.teams.exists(caller.organizationId, teamId))) {
      throw samlError('saml.unknown_default_team', `defaultTeam: no team ${teamId} in this organization`);
    }
  }
}
