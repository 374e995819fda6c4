import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';

/**
 * Pure helpers over the files of a specification: parsing one file (JSON or YAML), walking its
 * `$ref`s, JSON pointers, the content hash, and the one-document bundle the validator reads.
 * No I/O here: the fetcher brings the files, these only look at them.
 */

/** Why a document was refused; the service turns it into a 400 naming the place. */
export class SpecDocumentError extends Error {}

export type SpecFormat = 'json' | 'yaml';

/** Deepest nesting walked in a document (well beyond any real specification; keeps the walks bounded). */
export const MAX_NESTING = 512;
/** The key under which the validator's bundle carries the files a document references. */
export const BUNDLE_FILES_KEY = 'x-quire-files';

/** Parses one file. JSON when it looks like JSON and parses as such, else YAML (1.2 core schema, aliases bounded). */
export function parseSpecText(text: string, name: string): { format: SpecFormat; document: unknown } {
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') {
    try {
      return { format: 'json', document: JSON.parse(text) };
    } catch (error) {
      // `{a: 1}` is YAML's flow style: let YAML try before refusing.
      try {
        return { format: 'yaml', document: parseYamlText(text) };
      } catch {
        throw new SpecDocumentError(`${name} is not valid JSON: ${(error as Error).message}`);
      }
    }
  }
  try {
    return { format: 'yaml', document: parseYamlText(text) };
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    throw new SpecDocumentError(`${name} is not valid YAML or JSON: ${message}`);
  }
}

function parseYamlText(text: string): unknown {
  // uniqueKeys: a duplicated key is an error, not a silent overwrite; maxAliasCount bounds alias expansion.
  return parseYaml(text, { maxAliasCount: 1000, uniqueKeys: true, prettyErrors: true });
}

/** `#/a/b~1c` style pointer of a path. */
export function toPointer(path: (string | number)[]): string {
  return `#${path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
}

/** A `$ref` found in a document: its value and where it sits. */
export interface FoundRef {
  ref: string;
  path: (string | number)[];
}

/**
 * Every string `$ref` in a document with its location, walked without recursion (so a deep
 * document cannot overflow the stack); a document nested deeper than MAX_NESTING is refused.
 */
export function findRefs(document: unknown, name: string): FoundRef[] {
  // Paths are kept as links to the parent and built only for the refs found (and for the error of a
  // too-deep document), so the walk allocates one small record per node, not one path array.
  interface Step {
    value: unknown;
    key: string | number | undefined;
    parent: Step | undefined;
    depth: number;
  }
  const pathOf = (step: Step | undefined): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let at = step; at && at.key !== undefined; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const found: FoundRef[] = [];
  const stack: Step[] = [{ value: document, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const step = stack.pop() as Step;
    const value = step.value;
    if (!value || typeof value !== 'object') continue;
    if (step.depth > MAX_NESTING) throw new SpecDocumentError(`${name} is nested deeper than ${MAX_NESTING} levels at ${toPointer(pathOf(step).slice(0, 8))}…`);
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], key: index, parent: step, depth: step.depth + 1 });
      continue;
    }
    const record = value as Record<string, unknown>;
    const isRef = typeof record.$ref === 'string';
    if (isRef) found.push({ ref: record.$ref as string, path: [...pathOf(step), '$ref'] });
    const keys = Object.keys(record);
    for (let index = keys.length - 1; index >= 0; index--) {
      if (!isRef || keys[index] !== '$ref') stack.push({ value: record[keys[index]], key: keys[index], parent: step, depth: step.depth + 1 });
    }
  }
  // Document order, so "the first error" is the first one a reader meets.
  return found;
}

/** Splits a `$ref` into its file part ('' for the same file) and its JSON pointer ('' for the whole file). */
export function splitRef(ref: string): { file: string; pointer: string } {
  const hash = ref.indexOf('#');
  if (hash < 0) return { file: ref, pointer: '' };
  return { file: ref.slice(0, hash), pointer: ref.slice(hash + 1) };
}

/** The value at a JSON pointer (`/components/schemas/Pet`), or undefined when there is none. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? document : (document as Record<string, unknown> | undefined)?.[''];
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** SHA-256 over every file's key and text, in key order: identical content, identical hash. */
export function contentHash(files: { key: string; text: string }[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    hash.update(`${Buffer.byteLength(file.key)}:${file.key}\n${Buffer.byteLength(file.text)}:`);
    hash.update(file.text);
    hash.update('\n');
  }
  return hash.digest('hex');
}

/** A parsed file of a specification: its key in the filesystem and the document. */
export interface SpecFile {
  key: string;
  document: unknown;
  /** For URL sources: where it was fetched from (refs inside it resolve against this). */
  url?: string;
}

/**
 * One document for the validator: the entry file with every other file under `x-quire-files`
 * (an extension, allowed at the root of Swagger 2.0 and OpenAPI 3.x) and every `$ref` rewritten
 * to point inside it. The validator then resolves nothing outside this object: no file, no network.
 * `locate(file, ref)` names the file a `$ref` of `file` points to (by key), or undefined when it
 * stays in the same file. Without `owned`, the documents are cloned first.
 */
export function bundleForValidation(
  entry: SpecFile,
  others: SpecFile[],
  locate: (file: SpecFile, ref: string) => string | undefined,
  owned = false,
): Record<string, unknown> {
  const indexOf = new Map(others.map((file, index) => [file.key, index]));
  const prefixOf = (key: string) => (key === entry.key ? '#' : `#/${BUNDLE_FILES_KEY}/${indexOf.get(key)}`);
  const rewrite = (file: SpecFile): unknown => {
    // `owned`: the caller parsed these documents for this bundle alone, so they are not cloned again
    // (the validator dereferences in place).
    const copy = owned ? file.document : structuredClone(file.document);
    // Refs inside the entry file stay as they are; only the other files' refs need rewriting.
    if (file === entry && others.length === 0) return copy;
    for (const found of findRefs(copy, file.key)) {
      const target = locate(file, found.ref) ?? file.key;
      const { pointer } = splitRef(found.ref);
      const holder = found.path.slice(0, -1).reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], copy) as Record<string, unknown>;
      holder.$ref = `${prefixOf(target)}${pointer}`;
    }
    return copy;
  };
  const bundle = rewrite(entry) as Record<string, unknown>;
  if (others.length > 0) bundle[BUNDLE_FILES_KEY] = Object.fromEntries(others.map((file, index) => [String(index), rewrite(file)]));
  return bundle;
}

/**
 * The path of the member that starts on line `line` of `JSON.stringify(document, null, 2)` (the
 * text the validator's error frames quote), counted without building the text. Undefined past the end.
 */
export function pathAtLine(document: unknown, line: number): (string | number)[] | undefined {
  let current = 1;
  let found: (string | number)[] | undefined;
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (found) return;
    if (current === line) {
      found = path;
      return;
    }
    if (!value || typeof value !== 'object') return;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function');
    if (entries.length === 0) return;
    for (const [key, item] of entries) {
      current++;
      walk(item, [...path, key]);
      if (found) return;
    }
    current++;
  };
  walk(document, []);
  return found;
}

/** A file as the fetcher found it: its key, its text, and (URL sources) where it came from. */
export interface SourceFile {
  key: string;
  text: string;
  /** Where it was fetched from, after redirects: refs inside it resolve against this. */
  url?: string;
  /** The URL a `$ref` asked for, when a (same-origin) redirect answered from another one. */
  requested?: string;
}

/** A file's URL without its fragment: the identity of a fetched file. */
export function fileUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.toString();
}

/**
 * Parses the files of a source (the entry first) and checks every `$ref` lands on something, then
 * builds the validator's bundle. Pure and self-contained, so it runs in the validation worker.
 */
export function prepareForValidation(sources: SourceFile[]): Record<string, unknown> {
  const files = sources.map((source) => ({ ...source, document: parseSpecText(source.text, source.key).document }));
  const byUrl = new Map(files.flatMap((file) => [file.url, file.requested].flatMap((url) => (url ? [[fileUrl(url), file] as const] : []))));
  const locate = (from: SpecFile, ref: string): SpecFile | undefined => {
    const { file: part } = splitRef(ref);
    if (part === '') return from;
    return from.url ? byUrl.get(fileUrl(new URL(part, from.url).toString())) : undefined;
  };
  checkPointers(files, locate);
  const [entry, ...others] = files;
  return bundleForValidation(entry, others, (from, ref) => locate(from, ref)?.key, true);
}

/** Every `$ref` must land on something: a broken one is named with its place, before the validator runs. */
export function checkPointers(files: SpecFile[], locate: (from: SpecFile, ref: string) => SpecFile | undefined): void {
  for (const file of files) {
    for (const found of findRefs(file.document, file.key)) {
      const target = locate(file, found.ref);
      const { pointer } = splitRef(found.ref);
      const prefix = files.length > 1 ? `${file.key} ` : '';
      if (!target) throw new SpecDocumentError(`${prefix}${toPointer(found.path)}: "${found.ref}" points to a file that is not part of the specification`);
      if (resolvePointer(target.document, pointer) === undefined) {
        throw new SpecDocumentError(`${prefix}${toPointer(found.path)}: "${found.ref}" points to nothing (no "${pointer}" in ${target.key})`);
      }
    }
  }
}
