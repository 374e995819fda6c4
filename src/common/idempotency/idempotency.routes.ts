import { HttpStatus, INestApplication, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Binds the `Idempotency-Key` interceptor to the routes it can act on: those a POST reaches
 * (`@Post`, and `@All`) answering 201 (Nest's default for POST, or `@HttpCode(201)`), ahead of
 * any interceptor of their own. Every other route has no interceptor at all, so Nest runs it
 * without its per-request Observable chain (a global interceptor wraps every route, GETs
 * included: docs/scaling.md, "The hot path"). Call before the app is initialised (routes are
 * created from this metadata in `init()`). The interceptor still checks the method and status itself.
 */
export function bindIdempotency(app: INestApplication): void {
  const interceptor = app.get(IdempotencyInterceptor);
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method !== RequestMethod.POST && method !== RequestMethod.ALL) continue;
        const status = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? HttpStatus.CREATED;
        if (status !== HttpStatus.CREATED) continue;
        // The metadata lives on the class, which outlives an app (tests build several): replace an earlier app's instance.
        const own = ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).filter(
          (other) => !(other instanceof IdempotencyInterceptor),
        );
        Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...own], handler);
      }
    }
  }
}
