/** Shape limits of a JSON request body (INPUT_MAX_KEYS, INPUT_MAX_ARRAY_LENGTH, INPUT_MAX_DEPTH). */
export interface JsonShapeLimits {
  maxKeys: number;
  maxArrayLength: number;
  maxDepth: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

/** An object or array the scan is inside of. */
interface Level {
  object: boolean;
  /** Keys seen (object) or index of the current item (array). */
  count: number;
  /** Object: where the current key's text lies (between its quotes). While a child level is open, this key
   * (or, in an array, `count`) is how the child is named: the path is only built when a problem is found. */
  keyStart: number;
  keyEnd: number;
}

/**
 * The first shape problem of a JSON text, found before `JSON.parse` builds anything: an object with
 * more keys, an array with more items, or nesting deeper than the limits. One pass over the
 * characters with an explicit stack (no recursion), stopping at the first problem. Parsing first
 * would not do: V8 needs about 200 ms to build one object of 100,000 keys.
 *
 * The text is not validated here (JSON.parse does that next); on text that is not JSON the counts
 * may be off, which at worst refuses a body that was going to be refused anyway.
 */
export function findJsonShapeProblem(text: string, limits: JsonShapeLimits): string | undefined {
  const stack: Level[] = [];
  let stringStart = 0;
  let stringEnd = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote: the next quote not escaped (preceded by an even run of backslashes), found by
      // indexOf, which skips a string's characters many times faster than a loop over them.
      stringStart = i + 1;
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1) {
          i = length;
          break;
        }
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
        i = quote;
        if (backslashes % 2 === 0) break;
      }
      stringEnd = i;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      stack.push({ object: c === OPEN_OBJECT, count: 0, keyStart: 0, keyEnd: 0 });
      if (stack.length > limits.maxDepth) return `${pathOf(text, stack)}: nesting is deeper than the limit of ${limits.maxDepth} levels`;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
    } else if (c === COLON) {
      const level = stack[stack.length - 1];
      if (level?.object) {
        level.keyStart = stringStart;
        level.keyEnd = stringEnd;
        if (++level.count > limits.maxKeys) return `${pathOf(text, stack)}: has more than the limit of ${limits.maxKeys} keys`;
      }
    } else if (c === COMMA) {
      const level = stack[stack.length - 1];
      if (level && !level.object && ++level.count >= limits.maxArrayLength) {
        return `${pathOf(text, stack)}: has more than the limit of ${limits.maxArrayLength} items`;
      }
    }
  }
  return undefined;
}

function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The path of the innermost level, e.g. `memberships` or `title.0.0`, shortened when deep nesting makes it long. */
function pathOf(text: string, stack: Level[]): string {
  const path =
    stack
      .slice(0, -1)
      .map((parent) => (parent.object ? keyText(text, parent.keyStart, parent.keyEnd) : String(parent.count)))
      .join('.') || 'body';
  return path.length > 160 ? `${path.slice(0, 160)}…` : path;
}

/**
 * Where a parsed body holds a NUL character (PostgreSQL text cannot), as a message naming the
 * field, or undefined. Iterative; only called when the text contains a `\u0000` escape, the only
 * way a NUL gets into valid JSON.
 */
export function findNulCharacter(body: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: body, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    const field = path || 'body';
    if (typeof value === 'string') {
      if (value.includes('\0')) return `${field}: must not contain NUL characters`;
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], path: path ? `${path}.${index}` : String(index) });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index];
        if (key.includes('\0')) return `${field}: keys must not contain NUL characters`;
        stack.push({ value: (value as Record<string, unknown>)[key], path: path ? `${path}.${key}` : key });
      }
    }
  }
  return undefined;
}
