import { INestApplication } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
/** @nestjs/swagger's metadata key of @ApiOperation (its constants are not exported by the package). */
const API_OPERATION = 'swagger/apiOperation';
import { RequestMethod } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AUDITED_ROUTES, isAuditedRoute } from './audit-catalogue';
import { AuditScopeGuard } from './audit.guard';
import { AuditInterceptor } from './audit.interceptor';

/**
 * Binds the audit interceptor to every route the catalogue declares a change, as the innermost
 * interceptor (after `Idempotency-Key`, whose own bookkeeping is not the change); a route the space
 * unit of work records (`unitOfWork`) gets the audit guard instead, as its last guard, and the
 * interceptor only under AUDIT_STRICT (its check). GET routes and routes the catalogue marks
 * `notAudited` have neither. With AUDIT_ENABLED=false nothing is bound. Call before the app is initialised.
 */
export function bindAudit(app: INestApplication): void {
  const interceptor = app.get(AuditInterceptor);
  const guard = app.get(AuditScopeGuard);
  const { auditEnabled: enabled, auditStrict: strict } = app.get(AppConfig);
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === RequestMethod.GET || method === RequestMethod.HEAD || method === RequestMethod.OPTIONS) continue;
        const operationId = (Reflect.getMetadata(API_OPERATION, handler) as { operationId?: string } | undefined)?.operationId;
        const route = operationId ? AUDITED_ROUTES[operationId] : undefined;
        // The metadata lives on the class, which outlives an app (tests build several): replace an earlier app's instances.
        const own = ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).filter(
          (other) => !(other instanceof AuditInterceptor),
        );
        const ownGuards = ((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? []).filter(
          (other) => !(other instanceof AuditScopeGuard),
        );
        let interceptors = own;
        let guards = ownGuards;
        if (enabled && operationId && isAuditedRoute(route)) {
          if (route.unitOfWork) {
            guard.declare(handler, route, operationId);
            guards = [...ownGuards, guard];
          }
          if (!route.unitOfWork || strict) {
            interceptor.declare(handler, route, operationId);
            interceptors = [...own, interceptor];
          }
        }
        Reflect.defineMetadata(INTERCEPTORS_METADATA, interceptors, handler);
        Reflect.defineMetadata(GUARDS_METADATA, guards, handler);
      }
    }
  }
}
