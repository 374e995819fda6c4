import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager } from 'typeorm';
import { paginate, Page } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { Organization } from '../organizations/organization.entity';
import type { ListIntegrationsQueryDto } from './dto/list-integrations-query.dto';
import { Integration } from './integration.entity';

export interface IntegrationWithOwner {
  integration: Integration;
  owner: Organization;
}

/** Every query of integrations (the published rows, their icon and script). */
@Injectable()
export class IntegrationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async callerRoles(userId: string, manager: EntityManager = this.dataSource.manager): Promise<Map<string, MemberRoleOrGuest>> {
    const rows: { organization_id: string; role: MemberRoleOrGuest }[] = await manager.query(
      `SELECT organization_id, role FROM memberships WHERE user_id = $1 AND NOT disabled`,
      [userId],
    );
    return new Map(rows.map((row) => [row.organization_id, row.role]));
  }

  findByName(name: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<Integration | null> {
    const qb = manager.getRepository(Integration).createQueryBuilder('i').where('i.name = :name', { name });
    if (lock) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Integration | null> {
    return manager.getRepository(Integration).findOneBy({ id });
  }

  async organization(id: string, manager: EntityManager = this.dataSource.manager): Promise<Organization | null> {
    return manager.getRepository(Organization).findOneBy({ id });
  }

  async owners(ids: string[]): Promise<Map<string, Organization>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource.getRepository(Organization).createQueryBuilder('o').where('o.id IN (:...ids)', { ids }).getMany();
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The built script (not loaded with the row: it can be a megabyte). */
  async script(id: string, manager: EntityManager = this.dataSource.manager): Promise<{ script: string; signingSecret: string } | null> {
    return manager.getRepository(Integration).createQueryBuilder('i').select(['i.script', 'i.signingSecret']).where('i.id = :id', { id }).getOne();
  }

  /** The integration's signing secret alone (decrypted), without its script. */
  async signingSecret(id: string): Promise<string | null> {
    const row = await this.dataSource
      .getRepository(Integration)
      .createQueryBuilder('i')
      .select(['i.id', 'i.signingSecret'])
      .where('i.id = :id', { id })
      .getOne();
    return row?.signingSecret ?? null;
  }

  async icon(name: string): Promise<Buffer | null> {
    const row = await this.dataSource.getRepository(Integration).createQueryBuilder('i').select(['i.id', 'i.icon']).where('i.name = :name', { name }).getOne();
    return row?.icon ?? null;
  }

  async previewImage(name: string, index: number): Promise<string | null> {
    const row = await this.dataSource
      .getRepository(Integration)
      .createQueryBuilder('i')
      .select(['i.id', 'i.previewImages'])
      .where('i.name = :name', { name })
      .getOne();
    return row?.previewImages?.[index] ?? null;
  }

  async save(integration: Partial<Integration> & { id: string }, manager: EntityManager): Promise<void> {
    await manager.getRepository(Integration).save(integration);
  }

  async delete(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(Integration).delete({ id });
  }

  /**
   * Integrations the caller may see (public ones, and every one owned by their organizations),
   * filtered as `listIntegrations` says; `onlyIds` narrows to integrations installed somewhere.
   */
  list(roles: ReadonlyMap<string, unknown>, query: ListIntegrationsQueryDto, onlyIds?: string[]): Promise<Page<Integration>> {
    const orgs = [...roles.keys()];
    const qb = this.dataSource.getRepository(Integration).createQueryBuilder('i');
    qb.where(
      new Brackets((w) => {
        w.where(`i.visibility = 'public'`);
        if (orgs.length) w.orWhere('i.organization_id IN (:...orgs)', { orgs });
      }),
    );
    if (onlyIds) qb.andWhere(onlyIds.length ? 'i.id IN (:...onlyIds)' : 'false', { onlyIds });
    if (query.search) qb.andWhere(`(i.name ILIKE :search OR i.title ILIKE :search)`, { search: `%${escapeLike(query.search)}%` });
    if (query.category) qb.andWhere(`i.categories ? :category`, { category: query.category });
    if (query.scope) qb.andWhere(`i.scopes ? :scope`, { scope: query.scope });
    if (query.owner) qb.andWhere('i.organization_id = :owner', { owner: query.owner });
    if (query.target) qb.andWhere(`(i.target = :target OR i.target = 'all')`, { target: query.target });
    if (query.blocks !== undefined) qb.andWhere(query.blocks ? `jsonb_array_length(i.blocks) > 0` : `jsonb_array_length(i.blocks) = 0`);
    if (query.contentSources !== undefined) {
      qb.andWhere(query.contentSources ? `jsonb_array_length(i.content_sources) > 0` : `jsonb_array_length(i.content_sources) = 0`);
    }
    if (query.blockDomain) {
      // A block unfurls a domain when one of its urlUnfurl patterns has it as its host.
      qb.andWhere(
        `EXISTS (SELECT 1 FROM jsonb_array_elements(i.blocks) b, jsonb_array_elements_text(coalesce(b->'urlUnfurl', '[]')) u
                 WHERE substring(u from '^(?:[a-z]+://)?([^/:?#]+)') ILIKE :blockDomain)`,
        { blockDomain: escapeLike(query.blockDomain) },
      );
    }
    return paginate<Integration>(qb, query, { list: 'integrations:name:asc', columns: ['i.name'], direction: 'ASC', keyOf: (row) => [row.name] });
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
