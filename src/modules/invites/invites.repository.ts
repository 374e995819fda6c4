import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page, paginate } from '../../common/pagination/paginate';
import { Organization } from '../organizations/organization.entity';
import { PendingInvite } from './invite.read-model';
import { OrganizationInvite } from './organization-invite.entity';

/** Pending invitations of existing users (organization_invites). */
@Injectable()
export class InvitesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Creates the invitation, or updates the role and SSO flag of the one already pending. */
  async upsert(invite: Pick<OrganizationInvite, 'id' | 'organizationId' | 'userId' | 'role' | 'sso' | 'invitedBy'>, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO organization_invites (id, organization_id, user_id, role, sso, invited_by) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (organization_id, user_id) DO UPDATE SET role = excluded.role, sso = excluded.sso, invited_by = excluded.invited_by`,
      [invite.id, invite.organizationId, invite.userId, invite.role, invite.sso, invite.invitedBy],
    );
  }

  /** The invitations waiting for `userId`, oldest first. */
  listForUser(userId: string, query: ListQueryDto): Promise<Page<PendingInvite>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(OrganizationInvite, 'i')
      .innerJoinAndMapOne('i.organization', Organization, 'o', 'o.id = i.organization_id')
      .where('i.user_id = :userId', { userId });
    return paginate<PendingInvite>(qb, query, {
      list: 'user-invites:createdAt:asc',
      columns: ['i.created_at', 'i.id'],
      direction: 'ASC',
      keyOf: (row) => [row.invite.createdAt, row.invite.id],
      fetch: async (rows) =>
        ((await rows.getMany()) as (OrganizationInvite & { organization: Organization })[]).map(({ organization, ...invite }) => ({
          invite: Object.assign(new OrganizationInvite(), invite),
          organization,
        })),
    });
  }

  /** The invitation `id` addressed to `userId`, locked until the transaction ends; null for anyone else's. */
  findForUserLocked(id: string, userId: string, manager: EntityManager): Promise<OrganizationInvite | null> {
    return manager
      .createQueryBuilder(OrganizationInvite, 'i')
      .where('i.id = :id AND i.user_id = :userId', { id, userId })
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Deletes the invitation `id` addressed to `userId`; answers whether there was one. */
  /** Deletes the user's invite; its organization's id, or null when there was none. */
  async deleteForUser(id: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<string | null> {
    const result = await manager.createQueryBuilder().delete().from(OrganizationInvite).where({ id, userId }).returning('organization_id').execute();
    const rows = result.raw as { organization_id: string }[];
    return rows[0]?.organization_id ?? null;
  }
}
