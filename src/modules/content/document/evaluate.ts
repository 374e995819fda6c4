import { evaluateExpression, expressionRoots } from '../../../common/expressions/expression';
import { ALLOWED, type DocChild, type DocFragment, type DocNode, type DocText, type JsonDocument } from './document.types';

/**
 * Evaluation of a document for a read (`evaluated`, `dereferenced` of the public page and document
 * reads): pure, over a `JSONDocument` already obtained, and linear in what it answers.
 *
 * - `expression` inlines become text: the value of their expression over `{ space: { vars },
 *   page: { vars }, visitor: { claims } }` (an unknown variable gives the empty text);
 * - `if` blocks are kept (their nodes in their place) or dropped by their expression;
 * - with `dereferenced`, `reusable-content` blocks are replaced by the reusable content's nodes.
 *
 * An expression that reads `visitor` is evaluated only with `evaluated=true` and claims at hand;
 * otherwise (`deterministic-only`, or no visitor) it is left as it is, for the reader side.
 */

export type VariableValues = Record<string, string | number | boolean>;

export interface EvaluationContext {
  evaluated: boolean | 'deterministic-only';
  dereferenced: boolean | 'reusable-contents';
  /** The revision's variables (`space.vars`). */
  spaceVariables?: VariableValues;
  /** The page's variables (`page.vars`, over the revision's: the page's win). */
  pageVariables?: VariableValues;
  /** The visitor's claims (a site token's); undefined when no visitor is at hand. */
  claims?: Record<string, unknown>;
  /** The space whose reusable contents `reusableContent` answers (refs to other spaces stay as they are). */
  spaceId?: string;
  /** The document of a reusable content of the space, or undefined when it has none (the block then stays). */
  reusableContent?: (id: string) => JsonDocument | undefined;
}

/** Reusable contents included in included ones, at most this deep; deeper blocks stay as references. */
export const MAX_INCLUDE_DEPTH = 5;
/** Nodes an evaluation may answer in all: past it, no more reusable content is expanded (a fan-out of includes stays bounded). */
export const MAX_EVALUATED_NODES = 200_000;

type Outcome = { decided: true; value: unknown } | { decided: false };

export function evaluateDocument(document: JsonDocument, context: EvaluationContext): JsonDocument {
  if (!context.evaluated && !context.dereferenced) return document;
  return new Evaluation(context).run(document);
}

class Evaluation {
  private readonly scope: Record<string, unknown>;
  private readonly outcomes = new Map<string, Outcome>();
  /** Reusable contents being expanded, outermost first (a cycle stops at the first repeat). */
  private readonly including: string[] = [];
  private answered = 0;
  /** Text nodes this evaluation made, merged with their neighbours. */
  private readonly made = new WeakSet<DocText>();

  constructor(private readonly context: EvaluationContext) {
    const space = context.spaceVariables ?? {};
    this.scope = {
      space: { vars: space },
      page: { vars: { ...space, ...(context.pageVariables ?? {}) } },
      ...(context.claims ? { visitor: { claims: context.claims } } : {}),
    };
  }

  run(document: JsonDocument): JsonDocument {
    return { ...document, nodes: this.children(document.nodes, '', 'document') as DocNode[] };
  }

  /** Whether an expression is evaluated in this read, and its value when it is (a broken one is `undefined`). */
  private outcome(expression: unknown): Outcome {
    const source = typeof expression === 'string' ? expression : '';
    let outcome = this.outcomes.get(source);
    if (outcome === undefined) {
      const roots = expressionRoots(source);
      if (roots !== null && roots.has('visitor') && (this.context.evaluated !== true || !this.context.claims)) outcome = { decided: false };
      else {
        let value: unknown;
        try {
          value = roots === null ? undefined : evaluateExpression(source, this.scope);
        } catch {
          value = undefined;
        }
        outcome = { decided: true, value };
      }
      this.outcomes.set(source, outcome);
    }
    return outcome;
  }

  /** `nodes` evaluated, keys prefixed with `prefix` (inside an included content), in a container of type `container`. */
  private children(nodes: DocChild[], prefix: string, container: string): DocChild[] {
    const out: DocChild[] = [];
    for (const node of nodes) {
      this.answered++;
      if (node.object === 'text') {
        this.push(out, prefix ? { ...node, key: `${prefix}${node.key ?? ''}` } : node);
        continue;
      }
      if (this.context.evaluated && node.type === 'expression' && node.object === 'inline') {
        const outcome = this.outcome(node.data?.expression);
        if (outcome.decided) {
          const text: DocText = { object: 'text', key: `${prefix}${node.key ?? ''}`, leaves: [{ object: 'leaf', text: textOf(outcome.value), marks: [] }] };
          this.made.add(text);
          this.push(out, text);
          continue;
        }
      }
      if (this.context.evaluated && node.type === 'if' && node.object === 'block') {
        const outcome = this.outcome(node.data?.expression);
        if (outcome.decided) {
          if (outcome.value) for (const child of this.children(node.nodes ?? [], prefix, container)) out.push(child);
          continue;
        }
      }
      if (this.context.dereferenced && node.type === 'reusable-content' && node.object === 'block') {
        const expanded = this.include(node, prefix, container);
        if (expanded) {
          for (const child of expanded) out.push(child);
          continue;
        }
      }
      out.push(this.node(node, prefix));
    }
    return out;
  }

  /** Appends `text`, merged into the text before it when either was made here. */
  private push(out: DocChild[], node: DocChild): void {
    const last = out[out.length - 1];
    if (node.object === 'text' && last?.object === 'text' && (this.made.has(node) || this.made.has(last))) {
      // A text made here owns its leaves: appended to in place, so a run of expressions stays linear.
      const merged: DocText = this.made.has(last) ? last : { ...last, leaves: [...last.leaves] };
      for (const leaf of node.leaves) merged.leaves.push(leaf);
      this.made.add(merged);
      out[out.length - 1] = merged;
      return;
    }
    out.push(node);
  }

  private node(node: DocNode, prefix: string): DocNode {
    const copy: DocNode = prefix ? { ...node, key: `${prefix}${node.key ?? ''}` } : { ...node };
    if (node.nodes) copy.nodes = this.children(node.nodes, prefix, node.type);
    if (node.fragments) copy.fragments = node.fragments.map((fragment) => this.fragment(fragment, prefix));
    return copy;
  }

  private fragment(fragment: DocFragment, prefix: string): DocFragment {
    return {
      ...fragment,
      ...(prefix ? { key: `${prefix}${fragment.key ?? ''}` } : {}),
      nodes: this.children(fragment.nodes, prefix, fragment.type ?? fragment.fragment) as DocNode[],
    };
  }

  /**
   * The nodes of the reusable content `block` refers to, evaluated in place of the block; null
   * (the block stays) when the content is of another space, unknown, already being included (a
   * cycle), too deep, past the evaluation's budget, or holds blocks its place does not allow.
   */
  private include(block: DocNode, prefix: string, container: string): DocChild[] | null {
    const ref = block.data?.ref as { reusableContent?: unknown; space?: unknown } | undefined;
    const id = ref?.reusableContent;
    if (typeof id !== 'string' || (ref?.space !== undefined && ref.space !== this.context.spaceId)) return null;
    if (this.including.length >= MAX_INCLUDE_DEPTH || this.including.includes(id) || this.answered >= MAX_EVALUATED_NODES) return null;
    const document = this.context.reusableContent?.(id);
    if (!document) return null;
    const allowed = (ALLOWED as Record<string, Set<string>>)[container];
    if (allowed && document.nodes.some((node) => !allowed.has(node.type) && !(node.type === 'if' && this.context.evaluated))) return null;
    this.including.push(id);
    try {
      const nodes = this.children(document.nodes, `${prefix}${block.key ?? ''}/`, container);
      if (allowed && nodes.some((node) => node.object !== 'block' || !allowed.has(node.type))) return null;
      return nodes;
    } finally {
      this.including.pop();
    }
  }
}

/** An expression's value as text: an absent or non-scalar value is the empty text. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

/** The reusable contents of space `spaceId` that `documents` include (what a dereferenced read loads first). */
export function reusableContentRefs(documents: JsonDocument[], spaceId: string): Set<string> {
  const ids = new Set<string>();
  const stack: (DocChild | DocFragment)[] = documents.flatMap((document) => document.nodes);
  while (stack.length > 0) {
    const node = stack.pop() as DocChild | DocFragment;
    if (node.object === 'text') continue;
    if (node.object === 'block' && node.type === 'reusable-content') {
      const ref = node.data?.ref as { reusableContent?: unknown; space?: unknown } | undefined;
      if (typeof ref?.reusableContent === 'string' && (ref.space === undefined || ref.space === spaceId)) ids.add(ref.reusableContent);
      continue;
    }
    if (node.nodes) for (const child of node.nodes) stack.push(child);
    if ('fragments' in node && node.fragments) for (const fragment of node.fragments) stack.push(fragment);
  }
  return ids;
}
