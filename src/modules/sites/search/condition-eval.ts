import jsep from 'jsep';

/** A visitor's claims as conditions read them: `visitor.claims.X`, `visitor.claims.unsigned.X`. */
export type VisitorClaims = Record<string, unknown>;

/**
 * Whether a site-space or section condition holds for a visitor. The condition is an expression
 * over `visitor.claims.*` (literals, `! - +`, comparisons, `&& || ??`, ternaries); a claim the
 * visitor does not have is `undefined`. A condition that does not parse, or that uses anything
 * else, is false: what it guards stays hidden. Pure.
 */
export function conditionHolds(condition: string | null, claims: VisitorClaims): boolean {
  if (condition === null || condition.trim() === '') return true;
  try {
    return Boolean(evaluate(jsep(condition), { visitor: { claims } }));
  } catch {
    return false;
  }
}

function evaluate(node: jsep.Expression, scope: Record<string, unknown>): unknown {
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier':
      return Object.prototype.hasOwnProperty.call(scope, (node as jsep.Identifier).name) ? scope[(node as jsep.Identifier).name] : undefined;
    case 'MemberExpression': {
      const member = node as jsep.MemberExpression;
      if (member.computed || member.property.type !== 'Identifier') throw new Error('computed member');
      const object = evaluate(member.object, scope);
      const name = (member.property as jsep.Identifier).name;
      if (typeof object !== 'object' || object === null || !Object.prototype.hasOwnProperty.call(object, name)) return undefined;
      return (object as Record<string, unknown>)[name];
    }
    case 'UnaryExpression': {
      const unary = node as jsep.UnaryExpression;
      const value = evaluate(unary.argument, scope);
      if (unary.operator === '!') return !value;
      if (unary.operator === '-') return -(value as number);
      if (unary.operator === '+') return +(value as number);
      throw new Error(`operator ${unary.operator}`);
    }
    case 'BinaryExpression': {
      const binary = node as jsep.BinaryExpression;
      if (binary.operator === '&&') return evaluate(binary.left, scope) && evaluate(binary.right, scope);
      if (binary.operator === '||') return evaluate(binary.left, scope) || evaluate(binary.right, scope);
      if (binary.operator === '??') return evaluate(binary.left, scope) ?? evaluate(binary.right, scope);
      const left = evaluate(binary.left, scope) as number;
      const right = evaluate(binary.right, scope) as number;
      switch (binary.operator) {
        case '===':
          return left === right;
        case '!==':
          return left !== right;
        case '==':
          return left == right;
        case '!=':
          return left != right;
        case '<':
          return left < right;
        case '>':
          return left > right;
        case '<=':
          return left <= right;
        case '>=':
          return left >= right;
      }
      throw new Error(`operator ${binary.operator}`);
    }
    case 'ConditionalExpression': {
      const conditional = node as jsep.ConditionalExpression;
      return evaluate(conditional.test, scope) ? evaluate(conditional.consequent, scope) : evaluate(conditional.alternate, scope);
    }
  }
  throw new Error(`${node.type} is not supported`);
}
