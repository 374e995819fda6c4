import jsep from 'jsep';

/**
 * The one expression language of Quire: site conditions (`visitor.claims.isBeta`) and the
 * expressions of documents (`space.vars.version`, `page.vars.name`, `if` blocks). Parsed by jsep and
 * interpreted here, never executed as code: literals, member access on the scope's plain objects
 * by name (own properties only, so no prototype is ever reached), unary, binary, logical and
 * conditional operators. Anything else (a call, a computed member `a[b]`, an array literal) is an
 * error of evaluation.
 */

/** What an expression reads: `{ space: { vars }, page: { vars }, visitor: { claims } }` for documents. */
export type ExpressionScope = Record<string, unknown>;

const MAX_CACHED = 10_000;
const cache = new Map<string, jsep.Expression | null>();

/** Null when `source` is one expression that parses, else the syntax error. */
export function expressionProblem(source: string): string | null {
  try {
    // jsep reads `a b` as a list of expressions (Compound): an expression is one.
    if (jsep(source).type === 'Compound') return 'syntax error: one expression expected';
    return null;
  } catch (error) {
    return `syntax error: ${(error as Error).message}`;
  }
}

/** The parsed tree of `source`, or null when it does not parse; parses are cached (bounded). */
export function parseExpression(source: string): jsep.Expression | null {
  let tree = cache.get(source);
  if (tree === undefined) {
    try {
      const parsed = jsep(source);
      tree = parsed.type === 'Compound' ? null : parsed;
    } catch {
      tree = null;
    }
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(source, tree);
  }
  return tree;
}

/** The root names an expression reads (`visitor` for `visitor.claims.x == 1`); null when it does not parse. */
export function expressionRoots(source: string): Set<string> | null {
  const tree = parseExpression(source);
  if (tree === null) return null;
  const roots = new Set<string>();
  const stack: jsep.Expression[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop() as jsep.Expression;
    switch (node.type) {
      case 'Identifier':
        roots.add((node as jsep.Identifier).name);
        break;
      case 'MemberExpression': {
        const member = node as jsep.MemberExpression;
        stack.push(member.object);
        if (member.computed) stack.push(member.property);
        break;
      }
      default:
        for (const value of Object.values(node)) {
          if (Array.isArray(value)) stack.push(...value.filter(isNode));
          else if (isNode(value)) stack.push(value);
        }
    }
  }
  return roots;
}

const isNode = (value: unknown): value is jsep.Expression =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/**
 * The value of `source` over `scope`: an absent member is `undefined`. Throws when the expression
 * does not parse or uses what the interpreter does not (a call, say): the caller decides what
 * that means (a hidden site item, an empty text).
 */
export function evaluateExpression(source: string, scope: ExpressionScope): unknown {
  const tree = parseExpression(source);
  if (tree === null) throw new Error('syntax error');
  return evaluate(tree, scope);
}

function member(object: unknown, name: string): unknown {
  if (object === null || typeof object !== 'object') return undefined;
  return Object.hasOwn(object, name) ? (object as Record<string, unknown>)[name] : undefined;
}

function evaluate(node: jsep.Expression, scope: ExpressionScope): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier':
      return member(scope, (node as jsep.Identifier).name);
    case 'MemberExpression': {
      // Computed access (`a[b]`) is refused: names are written out, so what an expression reads is plain to see.
      const { object, property, computed } = node as jsep.MemberExpression;
      if (computed || property.type !== 'Identifier') throw new Error('computed member access');
      return member(evaluate(object, scope), (property as jsep.Identifier).name);
    }
    case 'UnaryExpression': {
      const { operator, argument } = node as jsep.UnaryExpression;
      const value = evaluate(argument, scope);
      if (operator === '!') return !value;
      if (operator === '-') return -(value as number);
      if (operator === '+') return +(value as number);
      throw new Error(`unsupported operator ${operator}`);
    }
    case 'ConditionalExpression': {
      const { test, consequent, alternate } = node as jsep.ConditionalExpression;
      return evaluate(test, scope) ? evaluate(consequent, scope) : evaluate(alternate, scope);
    }
    case 'BinaryExpression': {
      const { operator, left, right } = node as jsep.BinaryExpression;
      if (operator === '&&') return evaluate(left, scope) && evaluate(right, scope);
      if (operator === '||') return evaluate(left, scope) || evaluate(right, scope);
      if (operator === '??') return evaluate(left, scope) ?? evaluate(right, scope);
      const a = evaluate(left, scope) as number;
      const b = evaluate(right, scope) as number;
      switch (operator) {
        case '===':
          return a === b;
        case '!==':
          return a !== b;
        case '==':
          return a == b;
        case '!=':
          return a != b;
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        default:
          throw new Error(`unsupported operator ${operator}`);
      }
    }
    default:
      throw new Error(`unsupported ${node.type}`);
  }
}
