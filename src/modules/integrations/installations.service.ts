import { Injectable } from '@nestjs/common';
import { noteAuditOrganization } from '../../common/audit/audit.context';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import type { Page } from '../../common/pagination/paginate';
import type { User } from '../users/user.entity';
import { validateConfiguration, withStoredWriteOnly } from './configuration-schema';
import type { UpdateInstallationDto, UpdateTargetInstallationDto } from './dto/installation.dto';
import { EventsService } from './events.service';
import { IntegrationInstallation, InstallationStatus } from './integration-installation.entity';
import type { Integration } from './integration.entity';
import { integrationError } from './integration.errors';
import { CallerRoles, targetAllowed } from './integration.policy';
import type { IntegrationConfigurationSchema } from './integration.read-model';
import type { InstallationRow, TargetInstallationRow } from './installation.read-model';
import { InstallationsRepository, TargetKind } from './installations.repository';
import { IntegrationsService } from './integrations.service';

export interface InstallationView {
  integration: Integration;
  roles: CallerRoles;
}

/** Installations on organizations, spaces and sites; each install and configuration change emits its setup event. */
@Injectable()
export class InstallationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly integrations: IntegrationsService,
    private readonly installations: InstallationsRepository,
    private readonly events: EventsService,
  ) {}

  /** Installs on an organization (admins of it); installing again answers the existing installation. */
  async install(user: User, name: string, organizationId: string): Promise<InstallationView & { row: InstallationRow }> {
    const { value, roles } = await this.integrations.get(user, name);
    const integration = value.integration;
    this.requireAdmin(roles, organizationId);
    if (integration.visibility === 'private' && integration.organizationId !== organizationId) {
      throw integrationError('integration.install_forbidden', `Integration ${name} is private to the organization that owns it`);
    }
    const id = await this.dataSource.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('integration-install:' || $1 || ':' || $2))`, [integration.id, organizationId]);
      const existing = await this.installations.findInOrganization(integration.id, organizationId, em);
      if (existing) return existing.id;
      const status = statusFor(integration.configurations.account, {});
      const installation = Object.assign(new IntegrationInstallation(), {
        id: newId(),
        integrationId: integration.id,
        organizationId,
        status,
        configuration: {},
        externalIds: [],
        spaceSelection: 'selected',
        siteSelection: 'selected',
        // Installing is accepting the scopes the integration asks for now.
        grantedScopes: [...integration.scopes],
        installedBy: user.id,
      });
      await this.installations.insert(installation, em);
      await this.events.emit(
        { integrationId: integration.id, installationId: installation.id, payload: { type: 'installation_setup', installationId: installation.id, status } },
        em,
      );
      return installation.id;
    });
    return { integration, roles, row: await this.row(id) };
  }

  async get(user: User, name: string, installationId: string): Promise<InstallationView & { row: InstallationRow }> {
    const { integration, roles, installation } = await this.load(user, name, installationId, 'view');
    return { integration, roles, row: await this.row(installation.id) };
  }

  async list(
    user: User,
    name: string,
    query: { page?: string; limit: number; externalId?: string },
    onlyInstallation?: string,
  ): Promise<InstallationView & { page: Page<InstallationRow> }> {
    const { value, roles } = await this.integrations.get(user, name);
    // The owner's admins see every installation of their integration; others see those of their organizations; a script its own.
    const all = roles.get(value.integration.organizationId) === 'admin' && !onlyInstallation;
    const page = await this.installations.list(value.integration.id, query, all ? undefined : [...roles.keys()], onlyInstallation);
    return { integration: value.integration, roles, page };
  }

  async update(user: User, name: string, installationId: string, dto: UpdateInstallationDto): Promise<InstallationView & { row: InstallationRow }> {
    const { integration, roles } = await this.load(user, name, installationId, 'admin');
    await this.dataSource.transaction(async (em) => {
      const installation = (await this.installations.find(integration.id, installationId, em, true))!;
      const changes: Partial<IntegrationInstallation> = {};
      if (dto.externalIds) changes.externalIds = dto.externalIds;
      if (dto.space_selection) changes.spaceSelection = dto.space_selection;
      if (dto.site_selection) changes.siteSelection = dto.site_selection;
      if (dto.configuration) {
        const schema = integration.configurations.account;
        changes.configuration = checkedConfiguration(schema, withStoredWriteOnly(schema, dto.configuration, installation.configuration));
        changes.status = 'active';
      }
      await this.installations.update(installation.id, changes, em);
      if (dto.configuration) {
        await this.events.emit(
          {
            integrationId: integration.id,
            installationId: installation.id,
            payload: {
              type: 'installation_setup',
              installationId: installation.id,
              status: changes.status!,
              previous: { status: installation.status, configuration: installation.configuration },
            },
          },
          em,
        );
      }
    });
    return { integration, roles, row: await this.row(installationId) };
  }

  /**
   * An admin of the installation's organization grants scopes the integration asks for (after a
   * republish asked for more): the installation's scopes become those of `scopes` the manifest
   * lists now (a scope no longer asked for is never granted).
   */
  async grantScopes(user: User, name: string, installationId: string, scopes: string[]): Promise<InstallationView & { row: InstallationRow }> {
    const { integration, roles, installation } = await this.load(user, name, installationId, 'admin');
    const granted = integration.scopes.filter((scope) => scopes.includes(scope));
    await this.dataSource.transaction((em) => this.installations.update(installation.id, { grantedScopes: granted }, em));
    return { integration, roles, row: await this.row(installation.id) };
  }

  async uninstall(user: User, name: string, installationId: string): Promise<void> {
    const { installation } = await this.load(user, name, installationId, 'admin');
    await this.dataSource.transaction((em) => this.installations.delete(installation.id, em));
  }

  // Space and site installations

  async installOn(
    user: User,
    name: string,
    installationId: string,
    kind: TargetKind,
    targetId: string,
  ): Promise<InstallationView & { row: TargetInstallationRow }> {
    const { integration, roles, installation } = await this.load(user, name, installationId, 'admin');
    if (!targetAllowed(integration.target, kind)) {
      throw integrationError('integration.target_not_allowed', `Integration ${name} cannot be installed on a ${kind} (its target is ${integration.target})`);
    }
    const organizationId = kind === 'space' ? await this.installations.spaceOrganization(targetId) : await this.installations.siteOrganization(targetId);
    if (organizationId !== installation.organizationId)
      throw integrationError('integration.not_found', `${kind === 'space' ? 'Space' : 'Site'} ${targetId} not found`);
    await this.dataSource.transaction(async (em) => {
      const existing = await this.installations.findTarget(kind, installation.id, targetId, em);
      if (existing) return;
      const status = statusFor(integration.configurations[kind], {});
      await this.installations.upsertTarget(kind, { installationId: installation.id, targetId, status, configuration: {}, externalIds: [] }, em);
      await this.emitTargetSetup(em, integration, installation, kind, targetId, status);
    });
    return { integration, roles, row: await this.targetRow(kind, installation, targetId) };
  }

  async getOn(
    user: User,
    name: string,
    installationId: string,
    kind: TargetKind,
    targetId: string,
  ): Promise<InstallationView & { row: TargetInstallationRow }> {
    const { integration, roles, installation } = await this.load(user, name, installationId, 'view');
    return { integration, roles, row: await this.targetRow(kind, installation, targetId) };
  }

  async updateOn(
    user: User,
    name: string,
    installationId: string,
    kind: TargetKind,
    targetId: string,
    dto: UpdateTargetInstallationDto,
  ): Promise<InstallationView & { row: TargetInstallationRow }> {
    const { integration, roles, installation } = await this.load(user, name, installationId, 'admin');
    await this.dataSource.transaction(async (em) => {
      const current = await this.installations.findTarget(kind, installation.id, targetId, em);
      if (!current) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed on ${kind} ${targetId}`);
      const schema = integration.configurations[kind];
      const configuration = dto.configuration
        ? checkedConfiguration(schema, withStoredWriteOnly(schema, dto.configuration, current.configuration))
        : current.configuration;
      const status: InstallationStatus = dto.configuration ? 'active' : current.status;
      await this.installations.upsertTarget(
        kind,
        { installationId: installation.id, targetId, status, configuration, externalIds: dto.externalIds ?? current.externalIds },
        em,
      );
      if (dto.configuration) {
        await this.emitTargetSetup(em, integration, installation, kind, targetId, status, { status: current.status, configuration: current.configuration });
      }
    });
    return { integration, roles, row: await this.targetRow(kind, installation, targetId) };
  }

  async uninstallFrom(user: User, name: string, installationId: string, kind: TargetKind, targetId: string): Promise<void> {
    const { installation } = await this.load(user, name, installationId, 'admin');
    const removed = await this.dataSource.transaction((em) => this.installations.deleteTarget(kind, installation.id, targetId, em));
    if (!removed) throw integrationError('integration.installation_not_found', `Integration ${name} is not installed on ${kind} ${targetId}`);
  }

  async listOn(
    user: User,
    name: string,
    kind: TargetKind,
    query: { page?: string; limit: number; externalId?: string },
    installationId?: string,
  ): Promise<InstallationView & { page: Page<TargetInstallationRow> }> {
    const { value, roles } = installationId
      ? await this.load(user, name, installationId, 'view').then(({ integration, roles }) => ({ value: { integration }, roles }))
      : await this.integrations.get(user, name);
    const page = await this.installations.listTargets(kind, value.integration.id, query, { installationId, organizationIds: [...roles.keys()] });
    return { integration: value.integration, roles, page };
  }

  /** The integration and installation, seen by a member of its organization (404 otherwise), `admin` for writes (403). */
  private async load(user: User, name: string, installationId: string, need: 'view' | 'admin') {
    const { value, roles } = await this.integrations.get(user, name);
    const installation = await this.installations.find(value.integration.id, installationId);
    if (!installation || !roles.has(installation.organizationId)) {
      throw integrationError('integration.installation_not_found', `Installation ${installationId} not found`);
    }
    if (need === 'admin') this.requireAdmin(roles, installation.organizationId);
    // A write under `/installations/{id}` belongs to the installation's organization (its audit event's).
    noteAuditOrganization(installation.organizationId);
    return { integration: value.integration, roles, installation };
  }

  private requireAdmin(roles: CallerRoles, organizationId: string): void {
    if (!roles.has(organizationId)) throw integrationError('integration.not_found', `Organization ${organizationId} not found`);
    if (roles.get(organizationId) !== 'admin') {
      throw integrationError('integration.install_forbidden', `Only admins of organization ${organizationId} can install and configure integrations`);
    }
  }

  private async emitTargetSetup(
    em: EntityManager,
    integration: Integration,
    installation: IntegrationInstallation,
    kind: TargetKind,
    targetId: string,
    status: InstallationStatus,
    previous?: { status: InstallationStatus; configuration: Record<string, unknown> },
  ): Promise<void> {
    await this.events.emit(
      {
        integrationId: integration.id,
        installationId: installation.id,
        payload: {
          type: `${kind}_installation_setup`,
          installationId: installation.id,
          [`${kind}Id`]: targetId,
          status,
          ...(previous ? { previous } : {}),
        },
      },
      em,
    );
  }

  private async row(id: string): Promise<InstallationRow> {
    const installation = (await this.installations.findById(id))!;
    const counts = await this.installations.spacesCount([id]);
    return { installation, spaces: counts.get(id) ?? 0 };
  }

  private async targetRow(kind: TargetKind, installation: IntegrationInstallation, targetId: string): Promise<TargetInstallationRow> {
    const row = await this.installations.findTarget(kind, installation.id, targetId);
    if (!row) throw integrationError('integration.installation_not_found', `The integration is not installed on ${kind} ${targetId}`);
    return {
      installation,
      targetId,
      status: row.status,
      configuration: row.configuration,
      externalIds: row.externalIds,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }
}

/** `pending` while the schema's required configuration is missing, else `active`. */
function statusFor(schema: IntegrationConfigurationSchema | undefined, configuration: Record<string, unknown>): InstallationStatus {
  return validateConfiguration(schema, configuration).ok ? 'active' : 'pending';
}

function checkedConfiguration(schema: IntegrationConfigurationSchema | undefined, configuration: Record<string, unknown>): Record<string, unknown> {
  const result = validateConfiguration(schema, configuration);
  if (!result.ok) throw integrationError('integration.invalid_configuration', result.problems);
  return result.value;
}
