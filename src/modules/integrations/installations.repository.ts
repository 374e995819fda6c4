import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { paginate, Page } from '../../common/pagination/paginate';
import { IntegrationInstallation } from './integration-installation.entity';
import { IntegrationSiteInstallation } from './integration-site-installation.entity';
import { IntegrationSpaceInstallation } from './integration-space-installation.entity';
import type { InstallationRow, TargetInstallationRow } from './installation.read-model';

export type TargetKind = 'space' | 'site';
const TARGET = {
  space: { entity: IntegrationSpaceInstallation, table: 'integration_space_installations', column: 'space_id', property: 'spaceId' },
  site: { entity: IntegrationSiteInstallation, table: 'integration_site_installations', column: 'site_id', property: 'siteId' },
} as const;

/** Every query of installations: on organizations, and on their spaces and sites. */
/**
 * SQL condition on `integration_installations n`: an active installation of the organization (`organization`,
 * a placeholder) covering the site (`site`). `onSite` reads the rows; insights' ingest statement asks, through
 * the `SITE_VIEWS` port, whether any exists (`anyInstalledOnSite`, `SiteViewListener.listenedSql`).
 */
export const installedOnSite = (site: string, organization: string) =>
  `n.organization_id = ${organization} AND n.status = 'active'
   AND (n.site_selection = 'all' OR EXISTS (SELECT 1 FROM integration_site_installations x WHERE x.installation_id = n.id AND x.site_id = ${site}))`;
/** Whether any installation covers the site (`installedOnSite`), as one SQL expression. */
export const anyInstalledOnSite = (site: string, organization: string) =>
  `EXISTS (SELECT 1 FROM integration_installations n WHERE ${installedOnSite(site, organization)})`;

@Injectable()
export class InstallationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(integrationId: string, id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<IntegrationInstallation | null> {
    const qb = manager
      .getRepository(IntegrationInstallation)
      .createQueryBuilder('n')
      .where('n.id = :id AND n.integration_id = :integrationId', { id, integrationId });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<IntegrationInstallation | null> {
    return manager.getRepository(IntegrationInstallation).findOneBy({ id });
  }

  findInOrganization(integrationId: string, organizationId: string, manager: EntityManager = this.dataSource.manager): Promise<IntegrationInstallation | null> {
    return manager.getRepository(IntegrationInstallation).findOneBy({ integrationId, organizationId });
  }

  async insert(installation: IntegrationInstallation, manager: EntityManager): Promise<void> {
    await manager.getRepository(IntegrationInstallation).insert(installation as never);
  }

  async update(id: string, changes: Partial<IntegrationInstallation>, manager: EntityManager): Promise<void> {
    await manager.getRepository(IntegrationInstallation).update({ id }, { ...changes, updatedAt: new Date() } as never);
  }

  async delete(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(IntegrationInstallation).delete({ id });
  }

  async spacesCount(installationIds: string[]): Promise<Map<string, number>> {
    if (installationIds.length === 0) return new Map();
    const rows: { installation_id: string; n: number }[] = await this.dataSource.query(
      `SELECT installation_id, count(*)::int AS n FROM integration_space_installations WHERE installation_id = ANY($1) GROUP BY installation_id`,
      [installationIds],
    );
    return new Map(rows.map((row) => [row.installation_id, row.n]));
  }

  /** Installations of an integration, in the organizations `organizationIds` (all when undefined). */
  async list(
    integrationId: string,
    query: { page?: string; limit: number; externalId?: string },
    organizationIds?: string[],
    onlyInstallation?: string,
  ): Promise<Page<InstallationRow>> {
    const qb = this.dataSource.getRepository(IntegrationInstallation).createQueryBuilder('n').where('n.integration_id = :integrationId', { integrationId });
    if (onlyInstallation) qb.andWhere('n.id = :onlyInstallation', { onlyInstallation });
    if (organizationIds) qb.andWhere(organizationIds.length ? 'n.organization_id IN (:...organizationIds)' : 'false', { organizationIds });
    if (query.externalId) qb.andWhere('n.external_ids ? :externalId', { externalId: query.externalId });
    const page = await paginate<IntegrationInstallation>(qb, query, {
      list: 'integration-installations:createdAt:asc',
      columns: ['n.created_at', 'n.id'],
      direction: 'ASC',
      keyOf: (row) => [row.createdAt, row.id],
    });
    const counts = await this.spacesCount(page.items.map((i) => i.id));
    return { ...page, items: page.items.map((installation) => ({ installation, spaces: counts.get(installation.id) ?? 0 })) };
  }

  findTarget(kind: TargetKind, installationId: string, targetId: string, manager: EntityManager = this.dataSource.manager) {
    const t = TARGET[kind];
    return manager.getRepository(t.entity as typeof IntegrationSpaceInstallation).findOneBy({ installationId, [t.property]: targetId } as never);
  }

  async upsertTarget(
    kind: TargetKind,
    row: { installationId: string; targetId: string; status: string; configuration: Record<string, unknown>; externalIds: string[] },
    manager: EntityManager,
  ): Promise<void> {
    const t = TARGET[kind];
    await manager.query(
      `INSERT INTO ${t.table} (installation_id, ${t.column}, status, configuration, external_ids) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (installation_id, ${t.column}) DO UPDATE SET status = EXCLUDED.status, configuration = EXCLUDED.configuration,
         external_ids = EXCLUDED.external_ids, updated_at = now()`,
      [row.installationId, row.targetId, row.status, JSON.stringify(row.configuration), JSON.stringify(row.externalIds)],
    );
  }

  async deleteTarget(kind: TargetKind, installationId: string, targetId: string, manager: EntityManager): Promise<boolean> {
    const t = TARGET[kind];
    const result: [unknown[], number] = await manager.query(`DELETE FROM ${t.table} WHERE installation_id = $1 AND ${t.column} = $2`, [
      installationId,
      targetId,
    ]);
    return result[1] > 0;
  }

  /** Space or site installations of an integration (of one installation when given), in organizations the caller belongs to. */
  async listTargets(
    kind: TargetKind,
    integrationId: string,
    query: { page?: string; limit: number; externalId?: string },
    scope: { installationId?: string; organizationIds: string[] },
  ): Promise<Page<TargetInstallationRow>> {
    const t = TARGET[kind];
    const qb = this.dataSource
      .createQueryBuilder()
      .select(['x.installation_id AS installation_id', `x.${t.column} AS target_id`, 'x.status AS status', 'x.configuration AS configuration'])
      .addSelect(['x.external_ids AS external_ids', 'x.created_at AS created_at', 'x.updated_at AS updated_at'])
      .from(t.table, 'x')
      .innerJoin('integration_installations', 'n', 'n.id = x.installation_id')
      .where('n.integration_id = :integrationId', { integrationId })
      .andWhere(scope.organizationIds.length ? 'n.organization_id IN (:...orgs)' : 'false', { orgs: scope.organizationIds });
    if (scope.installationId) qb.andWhere('n.id = :installationId', { installationId: scope.installationId });
    if (query.externalId) qb.andWhere('x.external_ids ? :externalId', { externalId: query.externalId });
    type Raw = {
      installation_id: string;
      target_id: string;
      status: string;
      configuration: Record<string, unknown>;
      external_ids: string[];
      created_at: Date;
      updated_at: Date;
    };
    const page = await paginate<Raw>(qb, query, {
      list: `integration-${kind}-installations:createdAt:asc`,
      columns: ['x.created_at', 'x.installation_id', `x.${t.column}`],
      direction: 'ASC',
      keyOf: (row) => [row.created_at, row.installation_id, row.target_id],
      fetch: (rows) => rows.getRawMany(),
    });
    const installations = new Map<string, IntegrationInstallation>();
    for (const id of new Set(page.items.map((row) => row.installation_id))) installations.set(id, (await this.findById(id))!);
    return {
      ...page,
      items: page.items.map((row) => ({
        installation: installations.get(row.installation_id)!,
        targetId: row.target_id,
        status: row.status as IntegrationInstallation['status'],
        configuration: row.configuration,
        externalIds: row.external_ids,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      })),
    };
  }

  /** Installations of integrations on a space (active, with their integration ids): directly, or through `space_selection = all`. */
  async onSpace(
    spaceId: string,
    organizationId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ installationId: string; integrationId: string }[]> {
    const rows: { id: string; integration_id: string }[] = await manager.query(
      `SELECT n.id, n.integration_id FROM integration_installations n
        WHERE n.organization_id = $2 AND n.status = 'active'
          AND (n.space_selection = 'all' OR EXISTS (SELECT 1 FROM integration_space_installations x WHERE x.installation_id = n.id AND x.space_id = $1))`,
      [spaceId, organizationId],
    );
    return rows.map((row) => ({ installationId: row.id, integrationId: row.integration_id }));
  }

  async onSite(
    siteId: string,
    organizationId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ installationId: string; integrationId: string }[]> {
    const rows: { id: string; integration_id: string }[] = await manager.query(
      `SELECT n.id, n.integration_id FROM integration_installations n WHERE ${installedOnSite('$1', '$2')}`,
      [siteId, organizationId],
    );
    return rows.map((row) => ({ installationId: row.id, integrationId: row.integration_id }));
  }

  /**
   * The visitor-auth integrations installed on a site (an active site installation of an active
   * installation of the site's organization, of an integration in the `visitor-auth` category), the
   * oldest installation first.
   */
  async visitorAuthOnSite(
    siteId: string,
    organizationId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ installationId: string; integrationId: string; name: string }[]> {
    const rows: { id: string; integration_id: string; name: string }[] = await manager.query(
      `SELECT n.id, n.integration_id, i.name FROM integration_installations n
         JOIN integration_site_installations x ON x.installation_id = n.id AND x.site_id = $1 AND x.status = 'active'
         JOIN integrations i ON i.id = n.integration_id
        WHERE n.organization_id = $2 AND n.status = 'active' AND i.categories @> '["visitor-auth"]'::jsonb
        ORDER BY n.created_at, n.id`,
      [siteId, organizationId],
    );
    return rows.map((row) => ({ installationId: row.id, integrationId: row.integration_id, name: row.name }));
  }

  async siteOrganization(siteId: string, manager: EntityManager = this.dataSource.manager): Promise<string | null> {
    const rows: { organization_id: string }[] = await manager.query(`SELECT organization_id FROM sites WHERE id = $1`, [siteId]);
    return rows[0]?.organization_id ?? null;
  }

  async spaceOrganization(spaceId: string, manager: EntityManager = this.dataSource.manager): Promise<string | null> {
    const rows: { organization_id: string }[] = await manager.query(`SELECT organization_id FROM spaces WHERE id = $1 AND deleted_at IS NULL`, [spaceId]);
    return rows[0]?.organization_id ?? null;
  }
}
