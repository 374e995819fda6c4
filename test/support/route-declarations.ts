import type { INestApplication, Type } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ROUTE_ACCESS_EXTENSION, SCOPED_PARAMS, type RouteAccessDeclaration } from '../../src/common/access/route-access';
import { SCRIPT_ACCESS_EXTENSION, type ScriptAccessDeclaration } from '../../src/common/access/script-access';
import { SITE_ACCESS_EXTENSION, type SiteAccessDeclaration } from '../../src/common/access/site-access';
import { IS_PUBLIC } from '../../src/common/auth/public.decorator';
import { RouteAccessGuard } from '../../src/modules/access/route-access.guard';
import { OrganizationMemberGuard } from '../../src/modules/organizations/organization-member.guard';

// Metadata keys of @nestjs/common and @nestjs/swagger (their constants modules are not exported).
const PATH_METADATA = 'path';
const METHOD_METADATA = 'method';
const GUARDS_METADATA = '__guards__';
const API_OPERATION = 'swagger/apiOperation';
const API_EXTENSION = 'swagger/apiExtension';

/** One registered route as its decorators describe it. */
export interface DeclaredRoute {
  method: string;
  /** Express path, e.g. `/v1/spaces/:spaceId/content/page/:pageId`. */
  path: string;
  operationId: string;
  /** The scope its first scoped parameter asks for (`organizationId` → organization...), if any. */
  scope: RouteAccessDeclaration['scope'] | null;
  access: RouteAccessDeclaration | undefined;
  /** Whether the guard that enforces `access` runs on the route. */
  guarded: boolean;
  /** What a script token may call (`x-quire-script`), if declared. */
  script: ScriptAccessDeclaration | undefined;
  /** What a site API token may call (`x-quire-site`), if declared. */
  site: SiteAccessDeclaration | undefined;
  /** `@Public()`: no token is read at all. */
  isPublic: boolean;
}

const asList = (value: string | string[] | undefined) => (value === undefined ? [''] : Array.isArray(value) ? value : [value]);
const join = (...parts: string[]) =>
  `/${parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** The scope a path needs a declaration for: the innermost of its scoped parameters (`/orgs/:organizationId/members/:userId/spaces` → organization). */
export function scopeOf(path: string): DeclaredRoute['scope'] {
  const found = Object.entries(SCOPED_PARAMS).filter(([param]) => path.includes(`:${param}`));
  if (found.length === 0) return null;
  // A route names one scope; spaces and collections sit below organizations when both appear.
  return (found.find(([, scope]) => scope !== 'organization') ?? found[0])[1];
}

/** The routes of the given controller classes (what Nest registers from their metadata). */
export function routesOf(controllers: Type[]): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const controller of controllers) {
    const classGuards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, controller) ?? [];
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
      if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
      const guards = [...classGuards, ...((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[])];
      const access = (Reflect.getMetadata(API_EXTENSION, handler) ?? {})[ROUTE_ACCESS_EXTENSION] as RouteAccessDeclaration | undefined;
      const script = (Reflect.getMetadata(API_EXTENSION, handler) ?? {})[SCRIPT_ACCESS_EXTENSION] as ScriptAccessDeclaration | undefined;
      const site = (Reflect.getMetadata(API_EXTENSION, handler) ?? {})[SITE_ACCESS_EXTENSION] as SiteAccessDeclaration | undefined;
      const isPublic = Boolean(Reflect.getMetadata(IS_PUBLIC, handler) ?? Reflect.getMetadata(IS_PUBLIC, controller));
      const guard = access?.scope === 'organization' ? OrganizationMemberGuard : RouteAccessGuard;
      for (const base of asList(Reflect.getMetadata(PATH_METADATA, controller))) {
        for (const own of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
          const path = join(base, own);
          routes.push({
            method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod],
            path,
            operationId: (Reflect.getMetadata(API_OPERATION, handler) ?? {}).operationId ?? `${controller.name}.${name}`,
            scope: scopeOf(path),
            access,
            guarded: access !== undefined && guards.includes(guard),
            script,
            site,
            isPublic,
          });
        }
      }
    }
  }
  return routes;
}

/** Every route the application registered. */
export function declaredRoutes(app: INestApplication): DeclaredRoute[] {
  const controllers = new Set<Type>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) controllers.add(wrapper.metatype as Type);
  }
  return routesOf([...controllers]);
}

/** Routes with a scoped id that declare nothing, the wrong scope, or skip the guard: each should be empty. */
export function undeclared(routes: DeclaredRoute[]): string[] {
  return routes
    .filter((route) => route.scope !== null && (route.access?.scope !== route.scope || !route.guarded))
    .map((route) => `${route.method} ${route.path} (${route.operationId}) declares ${route.access ? route.access.scope : 'nothing'}`);
}
