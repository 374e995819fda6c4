import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { Membership } from './membership.entity';
import { Organization } from './organization.entity';

export interface OrganizationWithMembership {
  organization: Organization;
  membership: Membership;
}

@Injectable()
export class OrganizationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<Organization | null> {
    return manager.findOneBy(Organization, { id });
  }

  findMembership(organizationId: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<Membership | null> {
    return manager.findOneBy(Membership, { organizationId, userId });
  }

  async insert(organization: Partial<Organization> & Pick<Organization, 'id' | 'title'>, manager: EntityManager): Promise<Organization> {
    await manager.insert(Organization, organization);
    return (await this.findById(organization.id, manager)) as Organization;
  }

  /** The organizations `userId` belongs to (as a member or a guest). */
  async organizationIdsOf(userId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows = (await manager.query(`SELECT organization_id FROM memberships WHERE user_id = $1 ORDER BY organization_id`, [userId])) as {
      organization_id: string;
    }[];
    return rows.map((row) => row.organization_id);
  }

  async insertMembership(membership: Pick<Membership, 'organizationId' | 'userId' | 'role'>, manager: EntityManager): Promise<void> {
    await manager.insert(Membership, membership);
  }

  async update(id: string, changes: Partial<Organization>, manager: EntityManager = this.dataSource.manager): Promise<Organization> {
    if (Object.keys(changes).length > 0) await manager.update(Organization, { id }, changes);
    return (await this.findById(id, manager)) as Organization;
  }

  /** Whether `siteId` is a site of the organization (its default content must be). */
  async hasSite(organizationId: string, siteId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM sites WHERE id = $1 AND organization_id = $2', [siteId, organizationId]);
    return rows.length > 0;
  }

  /** An organization titled `title` in which `userId` is an admin (bootstrap's idempotency key). */
  findAdministeredByTitle(userId: string, title: string, manager: EntityManager): Promise<Organization | null> {
    return manager
      .createQueryBuilder(Organization, 'o')
      .innerJoin(Membership, 'm', 'm.organization_id = o.id AND m.user_id = :userId AND m.role = :role', { userId, role: 'admin' })
      .where('o.title = :title', { title })
      .orderBy('o.created_at', 'ASC')
      .getOne();
  }

  /** Those of `organizationIds` where `userId` owns at least one team (the `ownTeam` permission). */
  async withOwnedTeam(userId: string, organizationIds: string[]): Promise<Set<string>> {
    if (organizationIds.length === 0) return new Set();
    const rows: { organization_id: string }[] = await this.dataSource.manager
      .createQueryBuilder()
      // By table name, as the member counts do: teams build on organizations, not the reverse.
      .select('DISTINCT tm.organization_id', 'organization_id')
      .from('team_members', 'tm')
      .where(`tm.user_id = :userId AND tm.role = 'owner' AND tm.organization_id IN (:...organizationIds)`, { userId, organizationIds })
      .getRawMany();
    return new Set(rows.map((row) => row.organization_id));
  }

  /** The caller's organizations, oldest membership first. */
  listForUser(userId: string, query: ListQueryDto): Promise<Page<OrganizationWithMembership>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(Membership, 'm')
      .innerJoinAndMapOne('m.organization', Organization, 'o', 'o.id = m.organization_id')
      .where('m.user_id = :userId', { userId });
    return paginate<OrganizationWithMembership>(qb, query, {
      list: 'orgs',
      columns: ['m.joined_at', 'm.organization_id'],
      direction: 'ASC',
      keyOf: (row) => [row.membership.joinedAt, row.membership.organizationId],
      fetch: async (rows) =>
        (await rows.getMany()).map((membership) => {
          const { organization, ...rest } = membership as Membership & { organization: Organization };
          return { organization, membership: Object.assign(new Membership(), rest) };
        }),
    });
  }

  /** The ids among `userIds` that are not members (or guests) of the organization. */
  async nonMembers(organizationId: string, userIds: string[], manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows: { id: string }[] = await manager.query(
      `SELECT x.id FROM unnest($2::text[]) AS x(id) WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = $1 AND m.user_id = x.id) ORDER BY x.id`,
      [organizationId, userIds],
    );
    return rows.map((row) => row.id);
  }
}
