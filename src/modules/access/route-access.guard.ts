import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { ROUTE_ACCESS_EXTENSION, type RouteAccessDeclaration } from '../../common/access/route-access';
import { routeMetadata } from '../../common/metadata/route-metadata';
import { User } from '../users/user.entity';
import type { CollectionAction as CollectionActionName, SpaceAction as SpaceActionName } from './access.policy';
import { CollectionAccess, CollectionAccessService } from './collection-access.service';
import { SpaceAccess, SpaceAccessService } from './space-access.service';

const ROUTE_ACCESS = 'quire:route-access';

type ScopedDeclaration = Extract<RouteAccessDeclaration, { scope: 'space' | 'collection' }>;

/** The request as this guard leaves it. */
interface AccessRequest extends Request {
  spaceAccess?: SpaceAccess;
  collectionAccess?: CollectionAccess;
}

function declare(declaration: ScopedDeclaration): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROUTE_ACCESS, declaration),
    UseGuards(RouteAccessGuard),
    ApiExtension(ROUTE_ACCESS_EXTENSION, declaration),
    // Handlers read the access, not the id, so the id is documented here.
    ApiParam({ name: `${declaration.scope}Id`, type: String }),
  );
}

export interface SpaceActionOptions {
  /** Deleted spaces answer 404 unless this is set (restore is the one route that reaches them). */
  includeDeleted?: boolean;
}

/**
 * Declares a route on `/v1/spaces/{spaceId}…` and the permission it takes (`access.policy.ts`
 * decides each one): the guard resolves the caller's access to the space once, answers 404 when
 * the space is unknown, deleted or outside the caller's organizations and 403 without the
 * permission, and hands the access to the handler (`@CurrentSpaceAccess()`).
 */
export function SpaceAction(action: SpaceActionName, options: SpaceActionOptions = {}): MethodDecorator & ClassDecorator {
  return declare({ scope: 'space', action, ...(options.includeDeleted ? { includeDeleted: true } : {}) });
}

/** As `@SpaceAction`, for `/v1/collections/{collectionId}…` (`@CurrentCollectionAccess()`). */
export function CollectionAction(action: CollectionActionName): MethodDecorator & ClassDecorator {
  return declare({ scope: 'collection', action });
}

/** Runs the check a route declared with `@SpaceAction` or `@CollectionAction`, once per request. */
@Injectable()
export class RouteAccessGuard implements CanActivate {
  private readonly declarationOf: (context: ExecutionContext) => ScopedDeclaration | undefined;

  constructor(
    reflector: Reflector,
    private readonly spaces: SpaceAccessService,
    private readonly collections: CollectionAccessService,
  ) {
    this.declarationOf = routeMetadata<ScopedDeclaration>(reflector, ROUTE_ACCESS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const declaration = this.declarationOf(context);
    const request = context.switchToHttp().getRequest<AccessRequest>();
    if (!declaration) throw new Error(`${request.method} ${request.route?.path}: RouteAccessGuard without a declared action`);
    const user = request.user as User;
    if (declaration.scope === 'space') {
      request.spaceAccess ??= await this.spaces.require(user, request.params.spaceId as string, declaration.action as SpaceActionName, {
        includeDeleted: declaration.includeDeleted,
      });
    } else {
      request.collectionAccess ??= await this.collections.require(user, request.params.collectionId as string, declaration.action as CollectionActionName);
    }
    return true;
  }
}

/** The caller's access to the route's space, resolved by the guard of `@SpaceAction`. */
export const CurrentSpaceAccess = createParamDecorator((_: unknown, context: ExecutionContext): SpaceAccess => {
  const access = context.switchToHttp().getRequest<AccessRequest>().spaceAccess;
  if (!access) throw new Error('@CurrentSpaceAccess() on a route without @SpaceAction');
  return access;
});

/** The caller's access to the route's collection, resolved by the guard of `@CollectionAction`. */
export const CurrentCollectionAccess = createParamDecorator((_: unknown, context: ExecutionContext): CollectionAccess => {
  const access = context.switchToHttp().getRequest<AccessRequest>().collectionAccess;
  if (!access) throw new Error('@CurrentCollectionAccess() on a route without @CollectionAction');
  return access;
});
