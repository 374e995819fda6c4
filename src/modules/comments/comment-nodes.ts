import { markdownToDocument } from '../content/document';

/** A node of a page that a comment can point at, with the text shown as its `preview`. */
export interface PageNode {
  id: string;
  preview: string;
}

type Json = { type?: string; meta?: { id?: unknown }; nodes?: Json[]; leaves?: { text?: string }[] };

/**
 * The nodes of a page body a comment may target. Quire's documents give an id to headings only
 * (`meta.id`, the anchor that `/pages/ID#anchor` links and `format=document` already use), so a node
 * id is a heading anchor of the page: it is stable while the heading keeps its text, and the same id
 * the document form shows. Other blocks carry no id and cannot be targeted (comment on the page).
 */
export function pageNodes(markdown: string): PageNode[] {
  const found: PageNode[] = [];
  const walk = (nodes: Json[] | undefined) => {
    for (const node of nodes ?? []) {
      if (node.type?.startsWith('heading-') && typeof node.meta?.id === 'string') found.push({ id: node.meta.id, preview: textOf(node) });
      else walk(node.nodes);
    }
  };
  walk(markdownToDocument(markdown).nodes as Json[]);
  return found;
}

function textOf(node: Json): string {
  if (node.leaves) return node.leaves.map((leaf) => leaf.text ?? '').join('');
  return (node.nodes ?? []).map(textOf).join('');
}
