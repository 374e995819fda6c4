import { createHash } from 'node:crypto';

/** yaml is loaded on first use, not with the module: every start and test file loads this module, few read or write YAML. */
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (yamlModule ??= require('yaml') as typeof import('yaml'));
}

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

/** Most explicit-key indicators (`? `) in a YAML file: their nesting costs the parser polynomial time (200 deep: 0.2 s, 500: 40 s). */
export const MAX_YAML_EXPLICIT_KEYS = 64;

/**
 * Parses one file. JSON when it looks like JSON and parses as such, else YAML (1.2 core schema, aliases
 * bounded). The document is then checked as data (`checkDocument`): nesting at most MAX_NESTING, and no
 * string PostgreSQL cannot store. A YAML text is first read by the YAML lexer (linear, no recursion) to
 * refuse a nesting the recursive parser would overflow on or spend minutes in.
 */
export function parseSpecText(text: string, name: string): { format: SpecFormat; document: unknown } {
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    const line = text.slice(0, nul).split('\n').length;
    throw new SpecDocumentError(`${name} line ${line}: the text holds a NUL character (U+0000), which cannot be stored`);
  }
  const parsed = parseSpecSyntax(text, name);
  checkDocument(parsed.document, name);
  return parsed;
}

function parseSpecSyntax(text: string, name: string): { format: SpecFormat; document: unknown } {
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') {
    try {
      return { format: 'json', document: JSON.parse(text) };
    } catch (error) {
      // `{a: 1}` is YAML's flow style: let YAML try before refusing.
      try {
        return { format: 'yaml', document: parseYamlText(text, name) };
      } catch (yamlError) {
        if (yamlError instanceof SpecDocumentError) throw yamlError;
        throw new SpecDocumentError(`${name} is not valid JSON: ${(error as Error).message}`);
      }
    }
  }
  try {
    return { format: 'yaml', document: parseYamlText(text, name) };
  } catch (error) {
    if (error instanceof SpecDocumentError) throw error;
    const message = (error as Error).message.split('\n')[0];
    throw new SpecDocumentError(`${name} is not valid YAML or JSON: ${message}`);
  }
}

function parseYamlText(text: string, name: string): unknown {
  checkYamlNesting(text, name);
  // uniqueKeys: a duplicated key is an error, not a silent overwrite; maxAliasCount bounds alias expansion.
  return yaml().parse(text, { maxAliasCount: 1000, uniqueKeys: true, prettyErrors: true });
}

/**
 * Refuses, from the lexer's tokens, a YAML text whose flow collections nest deeper than MAX_NESTING,
 * whose lines open more than MAX_NESTING block collections at once (`- - - - x`), or with more than
 * MAX_YAML_EXPLICIT_KEYS explicit keys: shapes no specification has and the parser handles badly.
 */
function checkYamlNesting(text: string, name: string): void {
  const tooDeep = () => new SpecDocumentError(`${name} is nested deeper than ${MAX_NESTING} levels`);
  let flow = 0;
  let onLine = 0;
  let explicitKeys = 0;
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (token === '[' || token === '{') {
      if (++flow > MAX_NESTING) throw tooDeep();
    } else if (token === ']' || token === '}') {
      if (flow > 0) flow--;
    } else if (token === '-' || token === '?' || token === ':') {
      if (++onLine > MAX_NESTING) throw tooDeep();
      if (token === '?' && ++explicitKeys > MAX_YAML_EXPLICIT_KEYS) {
        throw new SpecDocumentError(`${name} has more than ${MAX_YAML_EXPLICIT_KEYS} explicit keys ("? "); a specification's keys are plain strings`);
      }
    } else if (token === '\n' || token === '\r\n') {
      onLine = 0;
    }
  }
}

/** One node of a walk over a parsed document without recursion: paths are links to the parent, built only when needed. */
interface Step {
  value: unknown;
  key: string | number | undefined;
  parent: Step | undefined;
  depth: number;
}

/** The path of a step from the document's root. */
function pathOf(step: Step | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = step; at && at.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Checks a parsed document as data, without recursion: nested at most MAX_NESTING levels (deeper, the
 * recursive steps after parsing, from JSON.stringify to the validator, overflow the stack), and no
 * key or string holding NUL (`\u0000` in JSON, `\0` in YAML) or an unpaired surrogate, which
 * PostgreSQL cannot store in text or jsonb. Refusals name the place as a JSON pointer.
 */
export function checkDocument(document: unknown, name: string): void {
  const stack: Step[] = [{ value: document, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const step = stack.pop() as Step;
    const value = step.value;
    if (typeof value === 'string') {
      const problem = unstorable(value);
      if (problem) throw new SpecDocumentError(`${name} ${toPointer(pathOf(step))}: the string holds ${problem}, which cannot be stored`);
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (step.depth > MAX_NESTING) throw new SpecDocumentError(`${name} is nested deeper than ${MAX_NESTING} levels at ${toPointer(pathOf(step).slice(0, 8))}…`);
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) stack.push({ value: value[index], key: index, parent: step, depth: step.depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let index = keys.length - 1; index >= 0; index--) {
      const problem = unstorable(keys[index]);
      if (problem)
        throw new SpecDocumentError(
          `${name} ${toPointer([...pathOf(step), keys[index]]).replaceAll('\0', '\\u0000')}: the key holds ${problem}, which cannot be stored`,
        );
      stack.push({ value: (value as Record<string, unknown>)[keys[index]], key: keys[index], parent: step, depth: step.depth + 1 });
    }
  }
}

/** What in a string PostgreSQL refuses (NUL, an unpaired surrogate), or undefined. */
function unstorable(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return 'a NUL character (U+0000)';
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return 'an unpaired surrogate';
      i++;
    }
  }
  return undefined;
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
 * A problem found while processing a specification that parses: a `$ref` that lands nowhere or a
 * validator error. Stored with the version (public `OpenAPIErrorObject`); it does not refuse the spec.
 */
export interface SpecProblem {
  message: string;
  code: string;
}

/** Code of a `$ref` that does not land on anything (the validator's own errors carry their keyword). */
export const UNRESOLVED_REF = 'UNRESOLVED_REF';

/**
 * Parses the files of a source (the entry first), lists every `$ref` that lands nowhere, then builds
 * the validator's bundle. A broken `$ref` is a problem of the spec, not a refusal: it is listed, and
 * removed from the bundle (only: the stored files keep it) so the validator checks everything else
 * instead of stopping at the first pointer it cannot follow. Pure and self-contained, so it runs in
 * the validation worker.
 */
export function prepareForValidation(sources: SourceFile[]): { bundle: Record<string, unknown>; problems: SpecProblem[] } {
  const files = sources.map((source) => ({ ...source, document: parseSpecText(source.text, source.key).document }));
  const byUrl = new Map(files.flatMap((file) => [file.url, file.requested].flatMap((url) => (url ? [[fileUrl(url), file] as const] : []))));
  const locate = (from: SpecFile, ref: string): SpecFile | undefined => {
    const { file: part } = splitRef(ref);
    if (part === '') return from;
    return from.url ? byUrl.get(fileUrl(new URL(part, from.url).toString())) : undefined;
  };
  const broken = brokenRefs(files, locate);
  for (const ref of broken) {
    // The documents were parsed for this bundle alone: dropping the `$ref` changes nothing stored.
    const holder = ref.path.slice(0, -1).reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], ref.file.document) as Record<string, unknown>;
    delete holder.$ref;
  }
  const [entry, ...others] = files;
  return {
    bundle: bundleForValidation(entry, others, (from, ref) => locate(from, ref)?.key, true),
    problems: broken.map((ref) => ({ message: ref.message, code: UNRESOLVED_REF })),
  };
}

/** A `$ref` that lands nowhere: its file, its place, and why, as `#/a/$ref: "#/b" points to nothing (…)`. */
export interface BrokenRef {
  file: SpecFile;
  path: (string | number)[];
  message: string;
}

/** Every `$ref` that does not land on something, in file then document order. */
export function brokenRefs(files: SpecFile[], locate: (from: SpecFile, ref: string) => SpecFile | undefined): BrokenRef[] {
  const broken: BrokenRef[] = [];
  for (const file of files) {
    for (const found of findRefs(file.document, file.key)) {
      const target = locate(file, found.ref);
      const { file: part, pointer } = splitRef(found.ref);
      const where = `${files.length > 1 ? `${file.key} ` : ''}${toPointer(found.path)}: "${found.ref}"`;
      if (!target) {
        // A text has no origin to resolve another file against.
        const why =
          file.url || part === ''
            ? 'points to a file that is not part of the specification'
            : 'points outside the document; a specification given as text cannot reference other files';
        broken.push({ file, path: found.path, message: `${where} ${why}` });
      } else if (resolvePointer(target.document, pointer) === undefined) {
        broken.push({ file, path: found.path, message: `${where} points to nothing (no "${pointer}" in ${target.key})` });
      }
    }
  }
  return broken;
}
