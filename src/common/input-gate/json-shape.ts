/** Shape limits of a JSON request body (INPUT_MAX_KEYS, INPUT_MAX_ARRAY_LENGTH, INPUT_MAX_DEPTH). */
export interface JsonShapeLimits {
  maxKeys: number;
  maxArrayLength: number;
  maxDepth: number;
}

/** Where a value sits in the body, kept as links to the parent so a path is only built for an error. */
interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | undefined;
}

function pathOf(frame: Frame | undefined): string {
  const keys: string[] = [];
  for (let at = frame; at?.key !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

const field = (frame: Frame | undefined) => pathOf(frame) || 'body';

/**
 * The first problem of a parsed JSON body, or undefined: an object with more keys, an array with
 * more items or nesting deeper than the limits, or a NUL character in a string or a key. One
 * iterative walk with an explicit stack (no recursion, so any depth is safe) that stops at the
 * first problem, and counts an object's keys before looking at any of them.
 */
export function findJsonShapeProblem(body: unknown, limits: JsonShapeLimits): string | undefined {
  const stack: Frame[] = [{ value: body, depth: 0, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const { value } = frame;
    if (typeof value === 'string') {
      if (value.includes('\0')) return `${field(frame)}: must not contain NUL characters`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const depth = frame.depth + 1;
    if (depth > limits.maxDepth) return `${field(frame)}: nesting is deeper than the limit of ${limits.maxDepth} levels`;
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) return `${field(frame)}: has more than the limit of ${limits.maxArrayLength} items`;
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], depth, parent: frame, key: String(index) });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > limits.maxKeys) return `${field(frame)}: has more than the limit of ${limits.maxKeys} keys`;
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index];
      if (key.includes('\0')) return `${field(frame)}: keys must not contain NUL characters`;
      stack.push({ value: (value as Record<string, unknown>)[key], depth, parent: frame, key });
    }
  }
  return undefined;
}
