import { CanActivate, ExecutionContext, createParamDecorator, Injectable, NotFoundException } from '@nestjs/common';
import type { Request } from 'express';
import { Membership } from './membership.entity';
import { OrganizationsRepository } from './organizations.repository';

/**
 * For routes under `/v1/orgs/{organizationId}`: loads the caller's membership, or answers 404 when
 * the caller is not in the organization (so routes outside it reveal nothing). Role checks stay
 * with each resource's policy, which answers 403.
 */
@Injectable()
export class OrganizationMemberGuard implements CanActivate {
  constructor(private readonly organizations: OrganizationsRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const organizationId = request.params.organizationId;
    const user = request.user;
    if (typeof organizationId !== 'string' || !user) throw new NotFoundException('Organization not found');
    const membership = await this.organizations.findMembership(organizationId, user.id);
    if (!membership || membership.disabled) throw new NotFoundException(`Organization ${organizationId} not found`);
    request.membership = membership;
    return true;
  }
}

/** The caller's membership in the route's organization, set by OrganizationMemberGuard. */
export const CurrentMembership = createParamDecorator((_: unknown, context: ExecutionContext): Membership => {
  return context.switchToHttp().getRequest<Request>().membership as Membership;
});
