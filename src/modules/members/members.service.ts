import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page } from '../../common/pagination/paginate';
import type { MemberRoleOrGuest } from '../../common/roles';
import { Membership } from '../organizations/membership.entity';
import { ListMembersQueryDto } from './dto/list-members-query.dto';
import { canListMembers, memberPermissions } from './member.policy';
import { MemberRow } from './member.read-model';
import { MembersRepository } from './members.repository';
import { VisitorClaimsService } from './visitor-claims.service';
import { memberError } from './member.errors';

@Injectable()
export class MembersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly members: MembersRepository,
    private readonly visitorClaims: VisitorClaimsService,
  ) {}

  list(caller: Membership, query: ListMembersQueryDto): Promise<Page<MemberRow>> {
    if (!canListMembers(caller)) throw memberError('member.list_forbidden', 'Guests cannot list the members of the organization');
    return this.members.list(caller.organizationId, query);
  }

  async get(caller: Membership, userId: string): Promise<MemberRow> {
    if (!memberPermissions(caller, { userId }).view) throw memberError('member.view_forbidden', 'Guests can only see their own membership');
    return this.found(caller.organizationId, userId);
  }

  /** Changes a member's role; the organization always keeps at least one admin. */
  async updateRole(caller: Membership, userId: string, role: MemberRoleOrGuest): Promise<MemberRow> {
    if (!memberPermissions(caller, { userId }).update) throw memberError('member.update_forbidden', 'Only organization admins can change roles');
    return this.dataSource.transaction(async (em) => {
      const target = await this.lockedTarget(caller.organizationId, userId, em);
      if (role !== 'admin') await this.keepAnAdmin(target, 'demote', em);
      await this.members.updateRole(caller.organizationId, userId, role, em);
      return this.found(caller.organizationId, userId, em);
    });
  }

  /** Removes a member (an admin removing anyone, or a member leaving); never the last admin. */
  async remove(caller: Membership, userId: string): Promise<void> {
    if (!memberPermissions(caller, { userId }).remove) throw memberError('member.remove_forbidden', 'Only organization admins can remove other members');
    await this.dataSource.transaction(async (em) => {
      const target = await this.lockedTarget(caller.organizationId, userId, em);
      await this.keepAnAdmin(target, 'remove', em);
      await this.members.delete(caller.organizationId, userId, em);
    });
  }

  async markSso(caller: Membership, userId: string): Promise<MemberRow> {
    if (!memberPermissions(caller, { userId }).update) throw memberError('member.update_forbidden', 'Only organization admins can make a member an SSO member');
    await this.found(caller.organizationId, userId);
    await this.members.setSso(caller.organizationId, [userId]);
    return this.found(caller.organizationId, userId);
  }

  /** Records the caller's activity and returns their visitor claims, signed (a JWT). */
  async ping(caller: Membership): Promise<string> {
    await this.members.touchLastSeen(caller.organizationId, caller.userId);
    return this.visitorClaims.sign(caller);
  }

  private async found(organizationId: string, userId: string, manager?: EntityManager): Promise<MemberRow> {
    const row = await this.members.find(organizationId, userId, manager);
    if (!row) throw memberError('member.not_found', `Member ${userId} not found`);
    return row;
  }

  private async lockedTarget(organizationId: string, userId: string, em: EntityManager): Promise<Membership> {
    await this.members.lockAdmins(organizationId, em);
    return (await this.found(organizationId, userId, em)).membership;
  }

  private async keepAnAdmin(target: Membership, action: 'demote' | 'remove', em: EntityManager): Promise<void> {
    if (target.role !== 'admin' || target.disabled) return;
    if ((await this.members.countOtherAdmins(target.organizationId, target.userId, em)) === 0) {
      throw memberError('member.last_admin', `Cannot ${action} the last admin of the organization: make another member an admin first`);
    }
  }
}
