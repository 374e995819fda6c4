import { Inject, Injectable, Optional } from '@nestjs/common';
import type { PageWithBody } from '../content.read-model';
import type { ComputedSource } from '../revision-page.entity';
import { COMPUTED_CONTENT_RENDERER, type ComputedContentRenderer } from './computed-content.port';

/**
 * Gives computed pages their generated body when content is read with `computed=true` (the
 * default), and an empty one with `computed=false`: the page stays in the tree, its generated
 * document is left out. Generated at read time from the generator's current input (for OpenAPI
 * pages: the spec's latest version), so a page follows its input without a new revision.
 */
@Injectable()
export class ComputedPages {
  constructor(@Optional() @Inject(COMPUTED_CONTENT_RENDERER) private readonly renderer?: ComputedContentRenderer) {}

  async fill(organizationId: string, pages: Pick<PageWithBody, 'pageId' | 'computed' | 'markdown'>[], computed: boolean): Promise<void> {
    const requests = pages.flatMap((page) => (page.computed ? [{ pageId: page.pageId, computed: page.computed }] : []));
    if (requests.length === 0) return;
    const bodies = computed && this.renderer ? await this.renderer.render(organizationId, requests) : new Map<string, string>();
    for (const page of pages) {
      if (!page.computed) continue;
      const body = bodies.get(page.pageId);
      if (body !== undefined) page.markdown = body;
      else if (!computed) page.markdown = '';
    }
  }

  /**
   * The Markdown body of one computed source (`getComputedDocument`), or undefined when no generator
   * here knows it (integration sources, translations, an OpenAPI source without a spec dependency).
   */
  async renderOne(organizationId: string, computed: ComputedSource, seed: string): Promise<string | undefined> {
    if (!this.renderer) return undefined;
    return (await this.renderer.render(organizationId, [{ pageId: seed, computed }])).get(seed);
  }
}
