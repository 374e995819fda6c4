import { Injectable } from '@nestjs/common';
import { Page } from '../../common/pagination/paginate';
import type { MemberRole } from '../../common/roles';
import { Membership } from '../organizations/membership.entity';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { User } from '../users/user.entity';
import type { SpacePermissionsJson } from '../space-model/space-permissions';
import { canListMemberSpaces, levelFromRank } from './access.policy';
import { AccessRepository } from './access.repository';
import { MemberSpacesQueryDto } from './dto/member-spaces-query.dto';
import { SpaceAccessService } from './space-access.service';
import { accessError } from './access.errors';
import type { MemberSpace } from './member-space.read-model';

/** The spaces a member of an organization can access, with their level on each, from the access model. */
@Injectable()
export class MemberSpacesService {
  constructor(
    private readonly access: AccessRepository,
    private readonly spaceAccess: SpaceAccessService,
    private readonly organizations: OrganizationsRepository,
  ) {}

  async list(caller: User, callerMembership: Membership, userId: string, query: MemberSpacesQueryDto): Promise<Page<MemberSpace>> {
    if (!canListMemberSpaces({ userId: caller.id, role: callerMembership.role }, userId)) {
      throw accessError('access.member_spaces_forbidden', "Only organization admins can list another member's spaces");
    }
    const { organizationId } = callerMembership;
    const member = await this.organizations.findMembership(organizationId, userId);
    if (!member) throw accessError('access.member_not_found', `Member ${userId} not found in organization ${organizationId}`);
    // A disabled member keeps their role on paper but reaches nothing.
    if (member.disabled) return { items: [], count: 0 };
    const page = await this.access.listSpacesForMember(organizationId, { userId, role: member.role }, query);
    const spaces = page.items.map(({ item }) => item);
    const permissions = await this.spaceAccess.permissionsFor(caller, spaces);
    return {
      ...page,
      items: page.items.map(({ item, rank }) => ({
        // Every listed space is one the member reaches, so the rank is at least `read`.
        permission: levelFromRank(rank) as MemberRole,
        space: item,
        permissions: permissions.get(item.id) as SpacePermissionsJson,
      })),
    };
  }
}
