/** Helpers comparing documents "up to keys" in the document model's tests. */
type Json = Record<string, unknown>;

export function withoutKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [name, child] of Object.entries(value)) if (name !== 'key') out[name] = withoutKeys(child);
  return out;
}

const MARK_ORDER = ['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript', 'color'];
const TEXT_HOLDERS = new Set(['paragraph', 'heading-1', 'heading-2', 'heading-3', 'link', 'code-line', 'annotation']);

interface Leaf {
  text: string;
  marks: Json[];
}

/**
 * A document in a canonical form for comparison "up to keys": no keys or `meta` (anchors are
 * derived), adjacent text merged into one text node whose leaves are split only where marks
 * change, marks in one order, and tables as a grid of titles and cells (their ids are keys too).
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return normalizeChildren(value, false);
  if (!value || typeof value !== 'object') return value;
  const node = value as Json;
  if (node.type === 'table' && node.object === 'block') return normalizeTable(node);
  const out: Json = {};
  for (const [name, child] of Object.entries(node)) {
    if (name === 'key' || name === 'meta') continue;
    if (name === 'nodes') out.nodes = normalizeChildren(child as unknown[], TEXT_HOLDERS.has(String(node.type)));
    else if (name === 'data' && String(node.type).startsWith('heading-')) out.data = {};
    else out[name] = normalize(child);
  }
  return out;
}

function normalizeChildren(children: unknown[], holdsText: boolean): unknown[] {
  const out: unknown[] = [];
  let leaves: Leaf[] | null = null;
  const flush = () => {
    if (leaves && leaves.length > 0) out.push({ object: 'text', leaves: leaves.map((leaf) => ({ object: 'leaf', ...leaf })) });
    leaves = null;
  };
  for (const child of children) {
    const node = child as Json;
    if (node?.object !== 'text') {
      flush();
      out.push(normalize(node));
      continue;
    }
    leaves ??= [];
    for (const leaf of node.leaves as Leaf[]) {
      if (!leaf.text) continue;
      const marks = [...leaf.marks].map((mark) => ({ ...mark })).sort((a, b) => MARK_ORDER.indexOf(String(a.type)) - MARK_ORDER.indexOf(String(b.type)));
      const last = leaves[leaves.length - 1];
      if (last && JSON.stringify(last.marks) === JSON.stringify(marks)) last.text += leaf.text;
      else leaves.push({ text: leaf.text, marks });
    }
  }
  flush();
  if (holdsText && out.length === 0) out.push({ object: 'text', leaves: [{ object: 'leaf', text: '', marks: [] }] });
  return out;
}

function normalizeTable(node: Json): unknown {
  const data = node.data as Json;
  const view = data.view as { columns: string[] };
  const definition = data.definition as Record<string, Json>;
  const fragments = new Map(((node.fragments as Json[]) ?? []).map((fragment) => [fragment.fragment, fragment]));
  const records = Object.values(data.records as Record<string, { orderIndex: string; values: Record<string, string> }>).sort((a, b) =>
    a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0,
  );
  return {
    type: 'table',
    columns: view.columns.map((id) => ({ title: definition[id].title, align: definition[id].textAlignment })),
    rows: records.map((record) => view.columns.map((id) => normalize((fragments.get(record.values[id]) as Json | undefined)?.nodes))),
  };
}
