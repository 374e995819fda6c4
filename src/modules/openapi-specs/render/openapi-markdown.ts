import type { OpenApiFilesystem } from '../openapi-spec-content.entity';

/**
 * The body of a computed page, generated from a spec's files (pure: no I/O). Operations are grouped
 * by tag (the spec's `tags` order, then first use; untagged ones under "default"), each with its
 * method and path, parameters, request body and responses. Lists, not tables, so the
 * `format=document` tree keeps the structure. `props.doc` narrows it, as the public
 * `ComputedContentSourceDocumentOpenAPI` describes: `info`, `models`, `tag`/`operations` (with
 * `page`: a tag), `operation` (with `page`: a path, and `method`); anything else renders every operation.
 */

type Json = Record<string, unknown>;

export interface OpenApiRenderProps {
  doc?: unknown;
  page?: unknown;
  method?: unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const MAX_REF_HOPS = 32;
const FAKE_BASE = 'http://spec.invalid/root/';

interface Operation {
  method: string;
  path: string;
  operation: Json;
  pathItem: Json;
  file: string;
}

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
/** Inline text: one line, no characters that would open markdown structure by accident. */
const inline = (value: string): string => value.replace(/\s+/g, ' ').trim();
const code = (value: string): string => {
  const clean = inline(value);
  const fence = clean.includes('`') ? '``' : '`';
  return `${fence}${clean}${fence}`;
};

export class OpenApiMarkdownRenderer {
  private readonly entryKey: string;
  private readonly entry: Json;

  constructor(private readonly files: OpenApiFilesystem) {
    this.entryKey = Object.keys(files)[0] ?? '';
    this.entry = isObject(files[this.entryKey]) ? (files[this.entryKey] as Json) : {};
  }

  render(props: OpenApiRenderProps = {}): string {
    const doc = text(props.doc);
    const page = text(props.page);
    if (doc === 'info') return this.info();
    if (doc === 'models') return this.models();
    if ((doc === 'tag' || doc === 'operations') && page) return this.byTag(page, true);
    if (doc === 'operation' && page) return this.single(page, text(props.method).toLowerCase());
    return this.byTag(undefined, false);
  }

  /** Follows `$ref`s (within the spec's files) until a value that is not one; the file it was found in. */
  private deref(value: unknown, file: string): { value: unknown; file: string } {
    let current = value;
    let currentFile = file;
    for (let hop = 0; hop < MAX_REF_HOPS && isObject(current) && typeof current.$ref === 'string'; hop++) {
      const ref = current.$ref;
      const hash = ref.indexOf('#');
      const part = hash < 0 ? ref : ref.slice(0, hash);
      const pointer = hash < 0 ? '' : ref.slice(hash + 1);
      if (part) {
        // Keys are paths relative to the entry's folder (or absolute, starting with '/').
        const target = new URL(part, new URL(currentFile, FAKE_BASE));
        const key = target.pathname.startsWith('/root/') ? decodeURIComponent(target.pathname.slice('/root/'.length)) : decodeURIComponent(target.pathname);
        currentFile = `${key}${target.search}`;
      }
      let node: unknown = this.files[currentFile];
      for (const raw of pointer.split('/').slice(1)) {
        const token = safeDecode(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        node = isObject(node) || Array.isArray(node) ? (node as Json)[token] : undefined;
      }
      current = node;
    }
    return { value: current, file: currentFile };
  }

  private operations(): Operation[] {
    const found: Operation[] = [];
    const paths = isObject(this.entry.paths) ? this.entry.paths : {};
    for (const [path, rawItem] of Object.entries(paths)) {
      const { value: item, file } = this.deref(rawItem, this.entryKey);
      if (!isObject(item)) continue;
      for (const method of METHODS) {
        if (isObject(item[method])) found.push({ method, path, operation: item[method] as Json, pathItem: item, file });
      }
    }
    return found;
  }

  private tagsOf(operation: Json): string[] {
    const tags = Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [];
    return tags.length > 0 ? tags : ['default'];
  }

  private byTag(only: string | undefined, withHeading: boolean): string {
    const declared = Array.isArray(this.entry.tags) ? this.entry.tags.filter(isObject) : [];
    const order = declared.map((tag) => text(tag.name)).filter(Boolean);
    const groups = new Map<string, Operation[]>(order.map((name) => [name, []]));
    for (const operation of this.operations()) {
      for (const tag of this.tagsOf(operation.operation)) {
        if (!groups.has(tag)) groups.set(tag, []);
        (groups.get(tag) as Operation[]).push(operation);
      }
    }
    const out: string[] = [];
    if (only === undefined) {
      const title = isObject(this.entry.info) ? inline(text(this.entry.info.title)) : '';
      if (title) out.push(`# ${title}`, '');
    }
    for (const [tag, operations] of groups) {
      if (only !== undefined && tag !== only) continue;
      if (operations.length === 0 && only === undefined) continue;
      const description = text(declared.find((entry) => entry.name === tag)?.description);
      if (only === undefined || withHeading) out.push(`## ${inline(tag)}`, '');
      if (description) out.push(description.trim(), '');
      for (const operation of operations) this.operation(operation, 3, out);
    }
    if (only !== undefined && !groups.has(only)) out.push(`_The specification has no operations tagged ${code(only)}._`, '');
    return finish(out);
  }

  private single(path: string, method: string): string {
    const match = this.operations().find((operation) => operation.path === path && (method === '' || operation.method === method));
    if (!match) return finish([`_The specification has no operation ${code(`${method.toUpperCase()} ${path}`.trim())}._`]);
    return finish(this.operation(match, 2, []));
  }

  /** Appends the operation's lines to `out` (one array for the whole page: a spec may have thousands). */
  private operation({ method, path, operation, pathItem, file }: Operation, level: number, out: string[]): string[] {
    const hashes = '#'.repeat(level);
    const title = inline(text(operation.summary)) || inline(text(operation.operationId)) || `${method.toUpperCase()} ${path}`;
    out.push(`${hashes} ${title}`, '', code(`${method.toUpperCase()} ${path}`), '');
    if (operation.deprecated === true) out.push('**Deprecated.**', '');
    const description = text(operation.description);
    if (description) out.push(description.trim(), '');

    const parameters = this.parameters(pathItem, operation, file);
    const listed = parameters.filter((parameter) => parameter.in !== 'body');
    if (listed.length > 0) {
      out.push('**Parameters**', '');
      for (const parameter of listed) {
        const facts = [text(parameter.in), this.schemaSummary(parameter.schema ?? parameter, file), parameter.required === true ? 'required' : 'optional'];
        const about = inline(text(parameter.description));
        out.push(`- ${code(text(parameter.name))} (${facts.filter(Boolean).join(', ')})${about ? `: ${about}` : ''}`);
      }
      out.push('');
    }

    const body = this.requestBody(operation, parameters, file);
    if (body.length > 0) out.push('**Request body**', '', ...body, '');

    const responses = this.deref(operation.responses, file).value;
    if (isObject(responses) && Object.keys(responses).length > 0) {
      out.push('**Responses**', '');
      for (const [status, rawResponse] of Object.entries(responses)) {
        const { value: response, file: responseFile } = this.deref(rawResponse, file);
        if (!isObject(response)) continue;
        const about = inline(text(response.description));
        const contents = this.contents(response, responseFile);
        out.push(`- ${code(status)}${about ? `: ${about}` : ''}${contents.length > 0 ? ` (${contents.join('; ')})` : ''}`);
      }
      out.push('');
    }
    return out;
  }

  /** Path-level parameters, overridden by the operation's own (same name and place). */
  private parameters(pathItem: Json, operation: Json, file: string): Json[] {
    const read = (list: unknown): Json[] => (Array.isArray(list) ? list : []).map((item) => this.deref(item, file).value).filter(isObject);
    const merged = new Map<string, Json>();
    for (const parameter of [...read(pathItem.parameters), ...read(operation.parameters)])
      merged.set(`${text(parameter.in)}:${text(parameter.name)}`, parameter);
    return [...merged.values()];
  }

  private requestBody(operation: Json, parameters: Json[], file: string): string[] {
    // Swagger 2.0: the body is a parameter.
    const bodyParameter = parameters.find((parameter) => parameter.in === 'body');
    if (bodyParameter) {
      const consumes = Array.isArray(operation.consumes) ? operation.consumes : Array.isArray(this.entry.consumes) ? this.entry.consumes : ['application/json'];
      const about = inline(text(bodyParameter.description));
      return [
        `- ${consumes.map((type) => code(String(type))).join(', ')}: ${this.schemaSummary(bodyParameter.schema, file)}${bodyParameter.required === true ? ', required' : ''}${about ? `. ${about}` : ''}`,
      ];
    }
    const { value: body, file: bodyFile } = this.deref(operation.requestBody, file);
    if (!isObject(body)) return [];
    const lines = this.contents(body, bodyFile).map((line) => `- ${line}${body.required === true ? ', required' : ''}`);
    const about = inline(text(body.description));
    return about ? [about, '', ...lines] : lines;
  }

  /** `application/json`: `Pet` for each media type of a body or response (OpenAPI 3), or its schema (Swagger 2.0). */
  private contents(holder: Json, file: string): string[] {
    if (isObject(holder.content)) {
      return Object.entries(holder.content).map(([type, media]) => {
        const schema = isObject(media) ? media.schema : undefined;
        return schema === undefined ? code(type) : `${code(type)}: ${this.schemaSummary(schema, file)}`;
      });
    }
    if (holder.schema !== undefined) return [this.schemaSummary(holder.schema, file)];
    return [];
  }

  /** A short name for a schema: its component name, or its type (`array of Pet`, `string (date-time)`). */
  schemaSummary(schema: unknown, file: string, depth = 0): string {
    if (!isObject(schema)) return 'any';
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop() ?? schema.$ref;
      return code(safeDecode(name).replace(/~1/g, '/').replace(/~0/g, '~'));
    }
    if (depth > 4) return 'object';
    for (const combinator of ['oneOf', 'anyOf', 'allOf'] as const) {
      const list = schema[combinator];
      if (Array.isArray(list) && list.length > 0) {
        const joiner = combinator === 'allOf' ? ' and ' : ' or ';
        return list.map((item) => this.schemaSummary(item, file, depth + 1)).join(joiner);
      }
    }
    const type = Array.isArray(schema.type) ? schema.type.join(' or ') : text(schema.type);
    if (type === 'array' || (type === '' && schema.items !== undefined)) return `array of ${this.schemaSummary(schema.items, file, depth + 1)}`;
    const details: string[] = [];
    if (typeof schema.format === 'string') details.push(schema.format);
    if (Array.isArray(schema.enum))
      details.push(
        `one of ${schema.enum
          .slice(0, 10)
          .map((value) => code(JSON.stringify(value)))
          .join(', ')}${schema.enum.length > 10 ? ', …' : ''}`,
      );
    const base = type || (isObject(schema.properties) ? 'object' : 'any');
    return details.length > 0 ? `${base} (${details.join('; ')})` : base;
  }

  private info(): string {
    const info = isObject(this.entry.info) ? this.entry.info : {};
    const out = [`# ${inline(text(info.title)) || 'API'}`, ''];
    if (text(info.version)) out.push(`Version ${code(text(info.version))}`, '');
    if (text(info.description)) out.push(text(info.description).trim(), '');
    const servers = Array.isArray(this.entry.servers) ? this.entry.servers.filter(isObject) : [];
    if (servers.length > 0) {
      out.push('**Servers**', '');
      for (const server of servers) out.push(`- ${code(text(server.url))}${text(server.description) ? `: ${inline(text(server.description))}` : ''}`);
      out.push('');
    } else if (typeof this.entry.host === 'string') {
      out.push('**Host**', '', `- ${code(`${this.entry.host}${text(this.entry.basePath)}`)}`, '');
    }
    return finish(out);
  }

  private models(): string {
    const components = isObject(this.entry.components) ? this.entry.components : {};
    const schemas = isObject(components.schemas) ? components.schemas : isObject(this.entry.definitions) ? this.entry.definitions : {};
    const out: string[] = [];
    for (const [name, raw] of Object.entries(schemas)) {
      const { value: schema, file } = this.deref(raw, this.entryKey);
      if (!isObject(schema)) continue;
      out.push(`## ${inline(name)}`, '');
      if (text(schema.description)) out.push(text(schema.description).trim(), '');
      out.push(`Type: ${this.schemaSummary(schema, file)}`, '');
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
      if (properties.length > 0) {
        out.push('**Properties**', '');
        for (const [property, value] of properties) {
          const about = isObject(value) ? inline(text(value.description)) : '';
          out.push(`- ${code(property)} (${this.schemaSummary(value, file)}, ${required.has(property) ? 'required' : 'optional'})${about ? `: ${about}` : ''}`);
        }
        out.push('');
      }
    }
    if (out.length === 0) out.push('_The specification defines no models._');
    return finish(out);
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function finish(lines: string[]): string {
  return `${lines.join('\n').trim()}\n`;
}

/** The markdown of a computed page generated from a spec's files. */
export function renderOpenApiMarkdown(files: OpenApiFilesystem, props: OpenApiRenderProps = {}): string {
  return new OpenApiMarkdownRenderer(files).render(props);
}
