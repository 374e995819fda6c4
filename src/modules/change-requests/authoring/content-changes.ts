import { DocumentInputError } from '../../content/document/document-input';
import { writtenDocumentMarkdownOffLoop } from '../../content/text-work/text-workers';
import { changeRequestError } from '../change-request.errors';

/**
 * The changes of `updateChangeRequestContent` (the public `ChangeRequestContentChange`), checked one
 * by one: a polymorphic list class-validator cannot express, so each problem is answered here with
 * the index of the change (`changes[3].page: must be a string`), before anything is written.
 */

export interface PageSettings {
  title?: string;
  slug?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
}

/** A body given as a `JSONDocument` (`{"document": …}`): written as Markdown by `resolveDocuments` before the change applies. */
export interface WrittenBody {
  /** The JSON document as given; set until `resolveDocuments` has written `markdown` from it. */
  written?: unknown;
  /** Whether `markdown` was written from a JSON document (no front matter or leading heading is read from it then). */
  fromDocument?: boolean;
}

export interface InsertPageChange extends PageSettings, WrittenBody {
  operation: 'insert_page';
  into?: string;
  at?: number;
  ref?: string;
  markdown: string;
  computed?: Record<string, unknown> | null;
}

export interface UpdatePageChange extends PageSettings, WrittenBody {
  operation: 'update_page';
  page: string;
  markdown?: string;
  /** null: to the root; undefined: parent unchanged. */
  into?: string | null;
  at?: number;
  computed?: Record<string, unknown> | null;
}

export interface DeletePageChange {
  operation: 'delete_page';
  page: string;
}

export interface RevertPageChange {
  operation: 'revert_page';
  page: string;
  revision?: string;
}

export interface FileUpload {
  ref?: string;
  name: string;
  contentType?: string;
  url?: string;
  base64?: string;
}

export interface InsertFilesChange {
  operation: 'insert_files';
  files: FileUpload[];
}

export type ContentChange = InsertPageChange | UpdatePageChange | DeletePageChange | RevertPageChange | InsertFilesChange;

export const MAX_CHANGES = 50;
export const MAX_FILES_PER_CHANGE = 20;
export const MAX_FILE_NAME = 256;
export const MAX_BASE64_BYTES = 1024 * 1024;
const MAX_SLUG = 100;
/** A page title's bound (revision_pages.title CHECK). */
export const MAX_PAGE_TITLE = 1000;
const MAX_EMOJI = 50;

type Json = Record<string, unknown>;

const SETTINGS_FIELDS = ['title', 'slug', 'emoji', 'icon', 'description', 'hidden', 'noIndex', 'noRobotsIndex', 'condition'];
const FIELDS: Record<ContentChange['operation'], string[]> = {
  insert_page: ['operation', 'into', 'at', 'ref', 'document', 'computed', ...SETTINGS_FIELDS],
  update_page: ['operation', 'page', 'into', 'at', 'document', 'computed', ...SETTINGS_FIELDS],
  delete_page: ['operation', 'page'],
  revert_page: ['operation', 'page', 'revision', 'block'],
  insert_files: ['operation', 'files'],
};

/** A 400 naming the change. */
export const invalidChange = (index: number, message: string) => changeRequestError('change_request.invalid_change', `changes[${index}]${message}`);

/** Checks every change of a batch; the first problem answers 400 with the change's index. */
export function parseChanges(raw: unknown[]): ContentChange[] {
  const refs = new Set<string>();
  const changes = raw.map((item, index) => parseChange(item, index));
  changes.forEach((change, index) => {
    const own = change.operation === 'insert_page' ? [change.ref] : change.operation === 'insert_files' ? change.files.map((file) => file.ref) : [];
    for (const ref of own) {
      if (ref === undefined) continue;
      if (refs.has(ref)) throw invalidChange(index, `: ref "${ref}" is used twice in the batch`);
      refs.add(ref);
    }
  });
  return changes;
}

function parseChange(item: unknown, index: number): ContentChange {
  if (!isObject(item)) throw invalidChange(index, ': must be an object');
  const operation = item.operation;
  if (typeof operation !== 'string' || !(operation in FIELDS)) {
    throw invalidChange(index, `.operation: must be one of ${Object.keys(FIELDS).join(', ')}`);
  }
  const op = operation as ContentChange['operation'];
  for (const key of Object.keys(item)) if (!FIELDS[op].includes(key)) throw invalidChange(index, `.${key}: is not a field of ${op}`);
  const read = new Reader(item, index);
  switch (op) {
    case 'insert_page': {
      const body = read.document(true) as Body;
      return {
        operation: op,
        ...read.settings(),
        into: read.string('into'),
        at: read.index('at'),
        ref: read.ref(),
        markdown: body.markdown ?? '',
        ...('written' in body ? { written: body.written } : {}),
        computed: read.computed(),
      };
    }
    case 'update_page': {
      const body = read.document(false);
      return {
        operation: op,
        page: read.string('page', true) as string,
        ...read.settings(),
        markdown: body?.markdown,
        ...(body && 'written' in body ? { written: body.written } : {}),
        into: read.nullableString('into'),
        at: read.index('at'),
        computed: read.computed(),
      };
    }
    case 'delete_page':
      return { operation: op, page: read.string('page', true) as string };
    case 'revert_page':
      if (item.block !== undefined) throw invalidChange(index, '.block: reverting single blocks is not supported; revert the whole page');
      return { operation: op, page: read.string('page', true) as string, revision: read.string('revision') };
    case 'insert_files':
      return { operation: op, files: read.files() };
  }
}

/**
 * Writes the Markdown of every change whose body is a JSON document (checked against the public
 * schema, bounded in size, large ones in the text worker pool). The first invalid document answers
 * 400 naming the change and the path in it; nothing is written before every body is resolved.
 */
export async function resolveDocuments(changes: ContentChange[]): Promise<void> {
  for (const [index, change] of changes.entries()) {
    if ((change.operation !== 'insert_page' && change.operation !== 'update_page') || !('written' in change)) continue;
    try {
      change.markdown = await writtenDocumentMarkdownOffLoop(change.written);
    } catch (error) {
      if (!(error instanceof DocumentInputError)) throw error;
      throw invalidChange(index, `.document.document${error.path.replace(/\//g, '.')}: ${error.problem}`);
    }
    delete change.written;
    change.fromDocument = true;
  }
}

type Body = { markdown: string } | { markdown?: undefined; written: unknown };

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

class Reader {
  constructor(
    private readonly item: Json,
    private readonly at: number,
  ) {}

  fail(field: string, message: string): never {
    throw invalidChange(this.at, `.${field}: ${message}`);
  }

  string(field: string, required = false): string | undefined {
    const value = this.item[field];
    if (value === undefined) return required ? this.fail(field, 'is required') : undefined;
    if (typeof value !== 'string') this.fail(field, 'must be a string');
    if (required && value === '') this.fail(field, 'must not be empty');
    return value;
  }

  nullableString(field: string): string | null | undefined {
    return this.item[field] === null ? null : this.string(field);
  }

  boolean(field: string): boolean | undefined {
    const value = this.item[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') this.fail(field, 'must be a boolean');
    return value;
  }

  index(field: string): number | undefined {
    const value = this.item[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) this.fail(field, 'must be an integer, 0 or more');
    return value;
  }

  ref(): string | undefined {
    const ref = this.string('ref');
    if (ref !== undefined && !/^[^\s/#?()]{1,100}$/.test(ref)) this.fail('ref', 'must be 1 to 100 characters without spaces, slashes, #, ? or parentheses');
    return ref;
  }

  settings(): PageSettings {
    const settings: PageSettings = {};
    const title = this.string('title');
    if (title !== undefined) {
      if (title.trim() === '') this.fail('title', 'must not be empty');
      if (title.length > MAX_PAGE_TITLE && [...title].length > MAX_PAGE_TITLE) this.fail('title', `must be at most ${MAX_PAGE_TITLE} characters`);
      settings.title = title;
    }
    const slug = this.string('slug');
    if (slug !== undefined) {
      if ([...slug].length > MAX_SLUG) this.fail('slug', `must be at most ${MAX_SLUG} characters`);
      if (/[/\s?#]/.test(slug)) this.fail('slug', 'must not contain slashes, spaces, ? or #');
      settings.slug = slug;
    }
    for (const field of ['emoji', 'icon'] as const) {
      const value = this.string(field);
      if (value !== undefined && [...value].length > MAX_EMOJI) this.fail(field, `must be at most ${MAX_EMOJI} characters`);
      if (value !== undefined) settings[field] = value;
    }
    const description = this.string('description');
    if (description !== undefined) settings.description = description;
    for (const field of ['hidden', 'noIndex', 'noRobotsIndex'] as const) {
      const value = this.boolean(field);
      if (value !== undefined) settings[field] = value;
    }
    if (this.item.condition !== undefined) this.fail('condition', 'adaptive-content conditions are not supported');
    return settings;
  }

  /**
   * The body of `document` (the public `Document`): `{"markdown": "…"}`, `{}` for an empty page, or
   * `{"document": <JSONDocument>}`, kept as given for `resolveDocuments` to check and write.
   */
  document(required: boolean): Body | undefined {
    const document = this.item.document;
    if (document === undefined) return required ? this.fail('document', 'is required') : undefined;
    if (!isObject(document)) this.fail('document', 'must be an object');
    const keys = Object.keys(document);
    if (keys.length === 0) return { markdown: '' };
    if (keys.length > 1 || (keys[0] !== 'markdown' && keys[0] !== 'document')) this.fail('document', 'must be {"markdown": "…"}, {"document": {…}} or {}');
    if (keys[0] === 'document') {
      if (!isObject(document.document)) this.fail('document.document', 'must be a JSON document object');
      return { written: document.document };
    }
    if (typeof document.markdown !== 'string') this.fail('document.markdown', 'must be a string');
    return { markdown: document.markdown };
  }

  computed(): Record<string, unknown> | null | undefined {
    const value = this.item.computed;
    if (value === undefined || value === null) return value as null | undefined;
    if (!isObject(value) || typeof value.type !== 'string') this.fail('computed', 'must be an object with a type');
    return value;
  }

  files(): FileUpload[] {
    const files = this.item.files;
    if (!Array.isArray(files) || files.length < 1 || files.length > MAX_FILES_PER_CHANGE)
      this.fail('files', `must be an array of 1 to ${MAX_FILES_PER_CHANGE} files`);
    return files.map((file: unknown, i) => {
      const at = `files[${i}]`;
      if (!isObject(file)) this.fail(at, 'must be an object');
      for (const key of Object.keys(file))
        if (!['ref', 'name', 'contentType', 'url', 'base64'].includes(key)) this.fail(`${at}.${key}`, 'is not a field of a file');
      const reader = new Reader(file, this.at);
      const upload: FileUpload = { name: reader.string('name', true) as string };
      if ([...upload.name].length > MAX_FILE_NAME) this.fail(`${at}.name`, `must be 1 to ${MAX_FILE_NAME} characters`);
      const ref = reader.ref();
      if (ref !== undefined) upload.ref = ref;
      const contentType = reader.string('contentType');
      if (contentType !== undefined) {
        if (!/^[\w.+-]+\/[\w.+-]+$/.test(contentType)) this.fail(`${at}.contentType`, 'must be a media type such as image/png');
        upload.contentType = contentType.toLowerCase();
      }
      const url = reader.string('url');
      const base64 = reader.string('base64');
      if ((url === undefined) === (base64 === undefined)) this.fail(at, 'must have exactly one of url and base64');
      if (url !== undefined) {
        if (!/^https?:\/\/\S+$/i.test(url) || url.length > 2048) this.fail(`${at}.url`, 'must be an http or https URL of at most 2048 characters');
        upload.url = url;
      }
      if (base64 !== undefined) {
        if (!contentType) this.fail(`${at}.contentType`, 'is required with base64');
        if (!/^[A-Z0-9+/]*={0,2}$/i.test(base64)) this.fail(`${at}.base64`, 'must be base64');
        if (Math.floor((base64.length * 3) / 4) > MAX_BASE64_BYTES + 2) this.fail(`${at}.base64`, 'must be at most 1 MB');
        upload.base64 = base64;
      }
      return upload;
    });
  }
}
