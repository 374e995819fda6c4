import { Injectable } from '@nestjs/common';
import type { ComputedContentRenderer, ComputedPageRequest } from '../content/computed/computed-content.port';
import { OpenApiSpecsRepository } from './openapi-specs.repository';
import { OpenApiRenderProps, renderOpenApiMarkdown } from './render/openapi-markdown';

/** Rendered bodies kept per (content, props): contents are immutable, so an entry never goes stale. */
const CACHE_ENTRIES = 256;

/** The slug a `builtin:openapi` source depends on, or undefined for any other source. */
export function openApiSlugOf(computed: ComputedPageRequest['computed']): string | undefined {
  if (computed.type !== 'builtin:openapi') return undefined;
  const spec = (computed.dependencies?.spec ?? {}) as { ref?: { kind?: unknown; spec?: unknown } };
  return spec.ref?.kind === 'openapi' && typeof spec.ref.spec === 'string' ? spec.ref.spec : undefined;
}

/**
 * Content's computed-page port for `builtin:openapi` pages: each page's body is generated from the
 * latest version of the spec its dependency names (in the page's organization), at read time, so
 * a page follows every new version of its spec without a new revision. A page whose spec is gone
 * or has no version gets an empty body.
 */
@Injectable()
export class OpenApiComputedRenderer implements ComputedContentRenderer {
  private readonly cache = new Map<string, string>();

  constructor(private readonly specs: OpenApiSpecsRepository) {}

  async render(organizationId: string, pages: ComputedPageRequest[]): Promise<Map<string, string>> {
    const wanted = pages.flatMap((page) => {
      const slug = openApiSlugOf(page.computed);
      return slug === undefined ? [] : [{ page, slug }];
    });
    const bodies = new Map<string, string>();
    if (wanted.length === 0) return bodies;
    const latest = await this.specs.latestContents(organizationId, [...new Set(wanted.map((entry) => entry.slug))]);
    const keyOf = (hash: string, props: unknown) => `${hash}\u0000${JSON.stringify(props ?? {})}`;
    const missing = [
      ...new Set(
        wanted.flatMap(({ page, slug }) =>
          latest.has(slug) && !this.cache.has(keyOf(latest.get(slug) as string, page.computed.props)) ? [latest.get(slug) as string] : [],
        ),
      ),
    ];
    const filesystems = await this.specs.filesystems(missing);
    for (const { page, slug } of wanted) {
      const hash = latest.get(slug);
      if (!hash) {
        bodies.set(page.pageId, '');
        continue;
      }
      const key = keyOf(hash, page.computed.props);
      let body = this.cache.get(key);
      if (body === undefined) {
        body = renderOpenApiMarkdown(filesystems.get(hash) ?? {}, (page.computed.props ?? {}) as OpenApiRenderProps);
        this.remember(key, body);
      }
      bodies.set(page.pageId, body);
    }
    return bodies;
  }

  private remember(key: string, body: string): void {
    this.cache.set(key, body);
    if (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }
}
