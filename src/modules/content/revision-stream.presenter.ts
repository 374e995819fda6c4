import type { RevisionContext, RevisionStream, TreeRow } from './content.read-model';
import { DEFAULT_LAYOUT, pageAppUrl, presentRevision } from './content.presenter';
import { referencedPageIds, withRelativeRefs } from './markdown/markdown-refs';

const DEFAULT_LAYOUT_JSON = JSON.stringify(DEFAULT_LAYOUT);
/**
 * Characters from which the text of a batch is handed on as one piece: a string stays under V8's
 * large-object size (128 KiB, two-byte text included), so writing it (which flattens the string
 * built by `+=`) costs a copy in the young generation. One string per 500-page batch (1 MB at
 * 2 KB a page) cost about 5 ms of flattening and old-generation garbage per batch, 10× this.
 */
const PIECE = 32 * 1024;

/**
 * The JSON text of a page tree (`[…]`, pages nested in their `pages`), written from rows that come
 * depth first in batches: each batch becomes chunks of about `PIECE` characters, so what is held at
 * once is a batch (and the one the repository fetches meanwhile) and the chain of open ancestors. Each page is the text `PagePresenter` gives it, with `pages` last
 * (its children follow): the parts PostgreSQL wrote (`TreeRow`), the constant parts as literals,
 * and in JavaScript only what needs it (the app URL, timestamps, JSON columns that are set, the
 * body: refs made relative only in bodies that have any, with the paths of linked pages asked for
 * per batch, by key).
 */
export async function* presentTreeStream(
  context: RevisionContext,
  tree: AsyncIterable<TreeRow[]>,
  pathsOf: (pageIds: string[]) => Promise<Map<string, string | null>>,
): AsyncGenerator<string> {
  yield '[';
  const iso = isoDates();
  // For each open level (0: the top), whether its next page is its first.
  const first: boolean[] = [true];
  for await (const batch of tree) {
    // Paths of the pages the bodies link to, when a body of the batch has a page ref.
    const paths = new Map<string, string | null>();
    if (batch.some((row) => row.markdown?.includes('](/pages/'))) {
      for (const row of batch) paths.set(row.pageId, row.path);
      const linked = new Set<string>();
      for (const row of batch) if (row.markdown) for (const id of referencedPageIds(row.markdown)) if (!paths.has(id)) linked.add(id);
      for (const [id, path] of await pathsOf([...linked])) paths.set(id, path);
    }
    const pathOf = (id: string) => paths.get(id);

    let out = '';
    for (const row of batch) {
      if (out.length >= PIECE) {
        yield out;
        out = '';
      }
      if (row.depth > first.length - 1) throw new Error(`page ${row.pageId} comes before its parent`);
      while (first.length - 1 > row.depth) {
        out += ']}';
        first.pop();
      }
      if (!first[row.depth]) out += ',';
      first[row.depth] = false;
      out += `${row.head},"createdAt":"${iso(row.createdMs)}","updatedAt":"${iso(row.updatedMs)}"`;
      if (row.kind === 'link') {
        const target = row.linkTarget ?? { kind: 'url', url: '' };
        out += `,"kind":"link","type":"link","target":${JSON.stringify(target)}${row.flags}`;
        // As JSON.stringify leaves out a property that is undefined.
        if (target.kind === 'url' && target.url !== undefined) out += `,"href":${JSON.stringify(target.url)}`;
        out += '}';
        continue;
      }
      if (row.kind === 'group') {
        out += `,"kind":"group","type":"group"${row.slugPath}${row.flags},"pages":[`;
        first.push(true);
        continue;
      }
      out += `,"kind":"sheet","type":"document","urls":{"app":${JSON.stringify(pageAppUrl(context, row.path))}}${row.slugPath}`;
      out += `,"layout":${row.layout ? JSON.stringify({ ...DEFAULT_LAYOUT, ...row.layout }) : DEFAULT_LAYOUT_JSON},"tags":[]${row.flags}`;
      if (row.cover) out += `,"cover":${JSON.stringify(row.cover)}`;
      if (row.variables && Object.keys(row.variables).length > 0) out += `,"variables":${JSON.stringify(row.variables)}`;
      if (row.documentId) out += `,"documentId":${JSON.stringify(row.documentId)}`;
      out += `,"markdown":${JSON.stringify(withRelativeRefs(row.markdown ?? '', row.path ?? '', pathOf))},"pages":[`;
      first.push(true);
    }
    if (out) yield out;
  }
  yield ']}'.repeat(first.length - 1) + ']';
}

/** `new Date(ms).toISOString()`, remembering the last few: the pages of one write share their timestamps. */
function isoDates(): (ms: number) => string {
  const known = new Map<number, string>();
  return (ms) => {
    let text = known.get(ms);
    if (text === undefined) {
      if (known.size >= 64) known.clear();
      text = new Date(ms).toISOString();
      known.set(ms, text);
    }
    return text;
  };
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
