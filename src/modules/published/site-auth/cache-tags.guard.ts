import { CanActivate, ExecutionContext, INestApplication, Injectable } from '@nestjs/common';
import { GUARDS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { Request, Response } from 'express';
import { SITE_ACCESS, type SiteAccessDeclaration } from '../../../common/access/site-access';
import { CACHE_TAG_HEADER, routeCacheTags } from '../../sites/freshness/cache-tags';

/**
 * Sets `x-gitbook-cache-tag` on every route a site token may read (`x-quire-site` other than
 * `none`), whoever calls it: the renderer tags what it caches from the answer with these, and the
 * freshness job revalidates the same tags when what they cover changes (`sites/freshness/cache-tags.ts`).
 *
 * A guard bound by `bindCacheTags` after each such route's own guards, so it runs once every guard
 * has let the request through and before the pipes and the handler, where a global interceptor set
 * it before; routes no site token reaches run without it, and none pays an interceptor's Observable
 * chain for a header (docs/scaling.md, "The hot path").
 */
@Injectable()
export class CacheTagsGuard implements CanActivate {
  canActivate(context: ExecutionContext): true {
    const http = context.switchToHttp();
    const tags = routeCacheTags(http.getRequest<Request>().params as Record<string, string | undefined>);
    if (tags.length > 0) http.getResponse<Response>().setHeader(CACHE_TAG_HEADER, tags.join(','));
    return true;
  }
}

/**
 * Binds `CacheTagsGuard` last among the guards of each route declared for site tokens (the handler's
 * `SITE_ACCESS`, else its controller's). Call before the app is initialised: routes are created from
 * this metadata in `init()`.
 */
export function bindCacheTags(app: INestApplication): void {
  const guard = app.get(CacheTagsGuard);
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as { prototype?: object } | null;
      const prototype = type?.prototype;
      if (!type || !prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const declaration = (Reflect.getMetadata(SITE_ACCESS, handler) ?? Reflect.getMetadata(SITE_ACCESS, type)) as SiteAccessDeclaration | undefined;
        // The metadata lives on the class, which outlives an app (tests build several): replace an earlier app's instance.
        const own = ((Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? []).filter((other) => !(other instanceof CacheTagsGuard));
        Reflect.defineMetadata(GUARDS_METADATA, declaration && declaration.site !== 'none' ? [...own, guard] : own, handler);
      }
    }
  }
}
