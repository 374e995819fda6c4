import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import { SITE_ACCESS, type SiteAccessDeclaration } from '../../../common/access/site-access';
import { routeMetadata } from '../../../common/metadata/route-metadata';
import { CACHE_TAG_HEADER, routeCacheTags } from '../../sites/freshness/cache-tags';

/**
 * Sets `x-gitbook-cache-tag` on every route a site token may read (`x-quire-site` other than
 * `none`), whoever calls it: the renderer tags what it caches from the answer with these, and the
 * freshness job revalidates the same tags when what they cover changes (`sites/freshness/cache-tags.ts`).
 */
@Injectable()
export class CacheTagsInterceptor implements NestInterceptor {
  private readonly declarationOf: (context: ExecutionContext) => SiteAccessDeclaration | undefined;

  constructor(reflector: Reflector) {
    this.declarationOf = routeMetadata<SiteAccessDeclaration>(reflector, SITE_ACCESS);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const declaration = this.declarationOf(context);
      if (declaration && declaration.site !== 'none') {
        const http = context.switchToHttp();
        const tags = routeCacheTags(http.getRequest<Request>().params as Record<string, string | undefined>);
        if (tags.length > 0) http.getResponse<Response>().setHeader(CACHE_TAG_HEADER, tags.join(','));
      }
    }
    return next.handle();
  }
}
