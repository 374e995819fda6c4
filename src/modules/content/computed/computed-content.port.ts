import type { ComputedSource } from '../revision-page.entity';

/**
 * The port through which content asks for the body of computed pages (section 2.19) without
 * knowing their generators: a module that can generate some (openapi-specs, for `builtin:openapi`)
 * provides it under this token. Content imports no such module; with no provider, computed pages
 * keep their stored body.
 */
export const COMPUTED_CONTENT_RENDERER = Symbol('COMPUTED_CONTENT_RENDERER');

export interface ComputedPageRequest {
  pageId: string;
  computed: ComputedSource;
}

export interface ComputedContentRenderer {
  /**
   * Markdown bodies for the computed pages of one organization's revision, by page id. A page left
   * out of the answer (a generator this renderer does not know) keeps its stored body.
   */
  render(organizationId: string, pages: ComputedPageRequest[]): Promise<Map<string, string>>;
}
