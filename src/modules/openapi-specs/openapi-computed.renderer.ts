import { Injectable } from '@nestjs/common';
import type { ComputedContentRenderer, ComputedPageRequest } from '../content/computed/computed-content.port';
import { OpenApiSpecsRepository } from './openapi-specs.repository';
import type { OpenApiRenderProps } from './render/openapi-markdown';
import { SpecWorkers } from './source/spec-workers';

/** Rendered bodies kept per (content, props): contents are immutable, so an entry never goes stale. */
const CACHE_ENTRIES = 256;
/** And at most this many characters in all (a 5 MB spec renders to about 2.8 M). */
const CACHE_CHARS = 64 * 1024 * 1024;

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
 *
 * Rendering (and parsing the stored filesystem it needs) runs in the module's workers
 * (SpecWorkers), never on the event loop: a 5 MB spec takes seconds. Bodies are cached per
 * (content, props), bounded in entries and characters, and concurrent reads of the same body share
 * one render.
 */
@Injectable()
export class OpenApiComputedRenderer implements ComputedContentRenderer {
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;
  /** Renders under way, by cache key: a second reader waits for the first render instead of starting its own. */
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly specs: OpenApiSpecsRepository,
    private readonly workers: SpecWorkers,
  ) {}

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
        wanted.flatMap(({ page, slug }) => {
          const hash = latest.get(slug);
          if (hash === undefined) return [];
          const key = keyOf(hash, page.computed.props);
          return this.cache.has(key) || this.inFlight.has(key) ? [] : [hash];
        }),
      ),
    ];
    const texts = await this.specs.filesystemTexts(missing);
    const rendered = new Map<string, Promise<string>>();
    for (const { page, slug } of wanted) {
      const hash = latest.get(slug);
      if (!hash) {
        rendered.set(page.pageId, Promise.resolve(''));
        continue;
      }
      const key = keyOf(hash, page.computed.props);
      const cached = this.cache.get(key);
      if (cached !== undefined) {
        rendered.set(page.pageId, Promise.resolve(cached));
        continue;
      }
      let running = this.inFlight.get(key);
      if (!running) {
        // Not fetched above when another read was rendering it then (and failed since): fetch it now.
        const text = texts.get(hash) ?? (await this.specs.filesystemTexts([hash])).get(hash);
        // Deleted meanwhile (with the last version using it): nothing to show, and nothing cached.
        if (text === undefined) {
          rendered.set(page.pageId, Promise.resolve(''));
          continue;
        }
        running = this.inFlight.get(key) ?? this.cachedOrRender(key, text, (page.computed.props ?? {}) as OpenApiRenderProps);
        this.inFlight.set(key, running);
        // Handled here too: a failure must not go unhandled while this loop awaits another fetch (Promise.all below reports it).
        running.catch(() => undefined);
      }
      rendered.set(page.pageId, running);
    }
    const entries = [...rendered];
    const answers = await Promise.all(entries.map(([, body]) => body));
    entries.forEach(([pageId], index) => bodies.set(pageId, answers[index]));
    return bodies;
  }

  private async cachedOrRender(key: string, filesystem: string, props: OpenApiRenderProps): Promise<string> {
    try {
      const cached = this.cache.get(key);
      if (cached !== undefined) return cached;
      const body = await this.workers.render(filesystem, props);
      this.remember(key, body);
      return body;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private remember(key: string, body: string): void {
    if (body.length > CACHE_CHARS || this.cache.has(key)) return;
    this.cache.set(key, body);
    this.cachedChars += body.length;
    while (this.cache.size > CACHE_ENTRIES || this.cachedChars > CACHE_CHARS) {
      const oldest = this.cache.keys().next().value as string;
      this.cachedChars -= (this.cache.get(oldest) as string).length;
      this.cache.delete(oldest);
    }
  }
}
