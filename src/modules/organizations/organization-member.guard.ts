import { applyDecorators, CanActivate, ExecutionContext, createParamDecorator, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { ROUTE_ACCESS_EXTENSION, type OrgRoleNeed, type RouteAccessDeclaration } from '../../common/access/route-access';
import { Membership } from './membership.entity';
import { organizationError } from './organization.errors';
import { OrganizationsRepository } from './organizations.repository';

const ORG_ROLE = 'quire:org-role';

/** Whether a membership meets a route's declared role (guests have role null). */
export function meetsOrgRole(membership: Pick<Membership, 'role'>, need: OrgRoleNeed): boolean {
  if (need === 'guest') return true;
  if (need === 'member') return membership.role !== null;
  return membership.role === 'admin';
}

/**
 * Declares a route under `/v1/orgs/{organizationId}` and the least role it takes: a caller outside
 * the organization gets 404, a member below the role 403 (finer rules, such as "admins or the
 * member themselves", stay with the resource's policy). On a controller it applies to every route;
 * a route's own `@OrgRole` overrides it. Written into the OpenAPI document as `x-quire-access`.
 */
export function OrgRole(role: OrgRoleNeed): ClassDecorator & MethodDecorator {
  const declaration: RouteAccessDeclaration = { scope: 'organization', role };
  return applyDecorators(SetMetadata(ORG_ROLE, role), UseGuards(OrganizationMemberGuard), ApiExtension(ROUTE_ACCESS_EXTENSION, declaration));
}

/**
 * For routes declared with `@OrgRole`: loads the caller's membership, or answers 404 when the
 * caller is not in the organization (so routes outside it reveal nothing), then 403 below the
 * declared role.
 */
@Injectable()
export class OrganizationMemberGuard implements CanActivate {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const organizationId = request.params.organizationId;
    const user = request.user;
    if (typeof organizationId !== 'string' || !user) throw organizationError('organization.not_found', 'Organization not found');
    // A controller-wide @OrgRole and a route's own both run this guard: the membership is loaded once.
    const loaded = request.membership?.organizationId === organizationId ? request.membership : null;
    const membership = loaded ?? (await this.organizations.findMembership(organizationId, user.id));
    if (!membership || membership.disabled) throw organizationError('organization.not_found', `Organization ${organizationId} not found`);
    const need = this.reflector.getAllAndOverride<OrgRoleNeed | undefined>(ORG_ROLE, [context.getHandler(), context.getClass()]) ?? 'guest';
    if (!meetsOrgRole(membership, need)) {
      throw need === 'admin'
        ? organizationError('organization.admin_required', `Only admins of organization ${organizationId} can do this`)
        : organizationError('organization.member_required', `Guests of organization ${organizationId} cannot do this`);
    }
    request.membership = membership;
    return true;
  }
}

/** The caller's membership in the route's organization, set by OrganizationMemberGuard. */
export const CurrentMembership = createParamDecorator((_: unknown, context: ExecutionContext): Membership => {
  return context.switchToHttp().getRequest<Request>().membership as Membership;
});
