import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { MemberRoleOrGuest } from '../../common/roles';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { User } from '../users/user.entity';
import { canTransfer } from './access.policy';
import { GrantsRepository } from './grants.repository';
import { accessError } from './access.errors';

/** Who may move a space or collection to another organization (see `canTransfer`), and what happens to its grants. */
@Injectable()
export class TransferAccessService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly grants: GrantsRepository,
  ) {}

  /** 400 for the same organization, 403 unless the caller administers the source, 404 when the target is not one of theirs, 403 unless they administer it. */
  async requireTransfer(user: User, source: { organizationId: string; organizationRole: MemberRoleOrGuest }, targetOrganizationId: string): Promise<void> {
    if (targetOrganizationId === source.organizationId)
      throw accessError('access.transfer_same_organization', 'organization: the content is already in this organization');
    if (source.organizationRole !== 'admin')
      throw accessError('access.transfer_forbidden', `Only admins of organization ${source.organizationId} can transfer its content`);
    const target = await this.organizations.findMembership(targetOrganizationId, user.id);
    if (!target || target.disabled) throw accessError('access.transfer_target_not_found', `Organization ${targetOrganizationId} not found`);
    if (!canTransfer(source.organizationRole, target.role))
      throw accessError('access.transfer_target_forbidden', `Only admins of organization ${targetOrganizationId} can transfer content into it`);
  }

  /**
   * Grants never follow content to another organization: the users and teams they name belong to
   * the old one. Every transfer (a space, or a collection with its subtree) drops them here, in its transaction.
   */
  dropGrantsOfTransferred(items: { spaceIds: string[]; collectionIds: string[] }, manager: EntityManager): Promise<void> {
    return this.grants.dropOn(items, manager);
  }
}
