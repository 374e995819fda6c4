import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Page } from '../../common/pagination/paginate';
import { User } from '../users/user.entity';
import { CreateOrganizationDto } from './dto/create-organization.dto';
import { UpdateOrganizationDto } from './dto/update-organization.dto';
import { Membership } from './membership.entity';
import { Organization } from './organization.entity';
import { organizationPermissions } from './organization.policy';
import { OrganizationsRepository, OrganizationWithMembership } from './organizations.repository';
import { organizationError } from './organization.errors';
import { mergeRuleUsers } from '../space-model/merge-rules';

@Injectable()
export class OrganizationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly organizations: OrganizationsRepository,
  ) {}

  async listForUser(user: User, query: ListQueryDto): Promise<Page<OrganizationWithMembership & { ownsTeam: boolean }>> {
    const page = await this.organizations.listForUser(user.id, query);
    const owned = await this.organizations.withOwnedTeam(
      user.id,
      page.items.map((item) => item.organization.id),
    );
    return { ...page, items: page.items.map((item) => ({ ...item, ownsTeam: owned.has(item.organization.id) })) };
  }

  /** Whether the caller owns a team of the organization (the `ownTeam` permission). */
  async ownsTeam(membership: Membership): Promise<boolean> {
    return (await this.organizations.withOwnedTeam(membership.userId, [membership.organizationId])).size > 0;
  }

  /** Creates an organization with `creator` as its first admin, in one transaction. */
  async create(creator: User, dto: CreateOrganizationDto, manager?: EntityManager): Promise<OrganizationWithMembership> {
    const run = async (em: EntityManager) => {
      const organization = await this.organizations.insert({ id: newId(), title: dto.title, emailDomains: dto.emailDomains ?? [] }, em);
      await this.organizations.insertMembership({ organizationId: organization.id, userId: creator.id, role: 'admin' }, em);
      const membership = (await this.organizations.findMembership(organization.id, creator.id, em)) as Membership;
      return { organization, membership };
    };
    return manager ? run(manager) : this.dataSource.transaction(run);
  }

  async get(membership: Membership): Promise<Organization> {
    return (await this.organizations.findById(membership.organizationId)) as Organization;
  }

  async update(membership: Membership, dto: UpdateOrganizationDto): Promise<Organization> {
    if (!organizationPermissions({ membership }).admin) {
      throw organizationError('organization.update_forbidden', 'Only organization admins can update the organization');
    }
    const { logo, defaultContent, ...rest } = dto;
    const changes: Partial<Organization> = { ...rest };
    if (logo !== undefined) changes.logoUrl = logo;
    if (defaultContent !== undefined) {
      if (defaultContent !== null && !(await this.organizations.hasSite(membership.organizationId, defaultContent.site)))
        throw organizationError('organization.default_site_invalid', 'defaultContent.site: no such site in this organization');
      changes.defaultSiteId = defaultContent?.site ?? null;
    }
    if (dto.mergeRules !== undefined) {
      const strangers = await this.organizations.nonMembers(membership.organizationId, mergeRuleUsers(dto.mergeRules));
      if (strangers.length > 0)
        throw organizationError('organization.merge_rules_invalid', `mergeRules: users are not members of the organization: ${strangers.join(', ')}`);
    }
    return this.organizations.update(membership.organizationId, changes);
  }
}
