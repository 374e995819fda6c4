import type { RevisionStream, TreeRow } from './content.read-model';
import { PagePresenter, presentRevision } from './content.presenter';
import { referencedPageIds } from './markdown/markdown-refs';
import type { RevisionContext } from './content.read-model';

/**
 * The JSON text of a page tree (`[…]`, pages nested in their `pages`), written from rows that come
 * depth first in batches: each batch becomes one chunk, so what is held at once is one batch and
 * the chain of open ancestors. Each page is shown exactly as `PagePresenter` shows it (its body
 * with refs relative to it, the paths of linked pages asked for per batch, by key).
 */
export async function* presentTreeStream(
  context: RevisionContext,
  tree: AsyncIterable<TreeRow[]>,
  pathsOf: (pageIds: string[]) => Promise<Map<string, string | null>>,
): AsyncGenerator<string> {
  yield '[';
  // For each open level (0: the top), whether its next page is its first.
  const first: boolean[] = [true];
  for await (const batch of tree) {
    const paths = new Map<string, string | null>(batch.map((row) => [row.pageId, row.path]));
    const linked = new Set<string>();
    for (const row of batch) if (row.markdown) for (const id of referencedPageIds(row.markdown)) if (!paths.has(id)) linked.add(id);
    for (const [id, path] of await pathsOf([...linked])) paths.set(id, path);

    let out = '';
    for (const row of batch) {
      if (row.depth > first.length - 1) throw new Error(`page ${row.pageId} comes before its parent`);
      while (first.length - 1 > row.depth) {
        out += ']}';
        first.pop();
      }
      if (!first[row.depth]) out += ',';
      first[row.depth] = false;
      const json = new PagePresenter(context, [row], paths).page(row);
      if (json.kind === 'link') {
        out += JSON.stringify(json);
        continue;
      }
      const { pages: _children, ...page } = json;
      // `{…}` without its closing brace, then its children in `pages`.
      out += `${JSON.stringify(page).slice(0, -1)},"pages":[`;
      first.push(true);
    }
    yield out;
  }
  yield ']}'.repeat(first.length - 1) + ']';
}

/** `Revision` of the public description, streamed: the revision's fields, then its page tree. */
export async function* presentRevisionStream(stream: RevisionStream, options: { metadata: boolean }): AsyncGenerator<string> {
  const { pages: _pages, ...head } = presentRevision({ ...stream, pages: [] }, options);
  yield `${JSON.stringify(head).slice(0, -1)},"pages":`;
  yield* presentTreeStream(stream.context, stream.tree, stream.pathsOf);
  yield '}';
}

/** `{ pages }` (listPages), streamed. */
export async function* presentPagesStream(stream: Pick<RevisionStream, 'context' | 'tree' | 'pathsOf'>): AsyncGenerator<string> {
  yield '{"pages":';
  yield* presentTreeStream(stream.context, stream.tree, stream.pathsOf);
  yield '}';
}
