import { Injectable } from '@nestjs/common';
import { OutboundError } from '../../../common/outbound/outbound-error';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { AppConfig } from '../../../config/app-config';
import { openApiError } from '../openapi-spec.errors';
import type { ContentProblems, LoadedSpec } from '../openapi-spec.read-model';
import { contentHash, fileUrl, SpecDocumentError, splitRef, toPointer } from './spec-documents';
import type { SpecProblems } from './spec-validation';
import { SpecWorkers } from './spec-workers';
import type { ParsedSpecFile } from './spec.worker';

/** The key a text source's hash is computed under (its filesystem key depends on the format, found by parsing). */
const TEXT_KEY = 'source.text';

/** JSON or YAML without parsing: for a known text, whose format was found when it was first stored. */
function guessFormat(text: string): 'json' | 'yaml' {
  const first = text.trimStart()[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

const ACCEPT = 'application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.5';

interface FetchedFile {
  key: string;
  url: string;
  text: string;
  parsed: ParsedSpecFile;
  depth: number;
}

/** The filesystem as JSON text (file key → document), assembled from each file's JSON without parsing it again. */
function filesystemJson(files: { key: string; json: string }[]): string {
  return `{${files.map((file) => `${JSON.stringify(file.key)}:${file.json}`).join(',')}}`;
}

/** Whether a content is stored already, and then the problems its validation found. */
export type StoredContent = (hash: string) => Promise<ContentProblems | null>;

const asStored = ({ problems, total }: SpecProblems): ContentProblems => ({ errors: problems, errorCount: total });

/**
 * Turns a source (`{text}` or `{url}`) into a specification ready to store: fetches (through the
 * SSRF-guarded client, bounded in bytes, files, `$ref` depth and time), parses, hashes, then lists
 * what does not validate: `$ref`s that land nowhere and the parser's errors. Only a source that
 * cannot be fetched or parsed (or is not an object with `openapi`/`swagger`, or breaks a bound) is
 * a 400 naming where; a specification that parses is kept with its problems.
 */
@Injectable()
export class SpecLoader {
  constructor(
    private readonly outbound: OutboundHttpClient,
    private readonly config: AppConfig,
    private readonly validator: SpecWorkers,
  ) {}

  /**
   * `isStored(hash)`: whether that content is stored already, with its problems. Stored contents
   * were validated when they were stored and never change, so a known text is not parsed again, and
   * a known set of fetched files is not validated again (the usual case of a spec re-submitted unchanged).
   */
  async load(source: { url?: string; text?: string }, isStored: StoredContent): Promise<LoadedSpec> {
    try {
      return source.url !== undefined ? await this.fromUrl(source.url, isStored) : await this.fromText(source.text as string, isStored);
    } catch (error) {
      if (error instanceof SpecDocumentError) throw openApiError('openapi.invalid', error.message);
      throw error;
    }
  }

  private async fromText(text: string, isStored: StoredContent): Promise<LoadedSpec> {
    const size = Buffer.byteLength(text);
    if (size > this.config.openapi.maxBytes) throw new SpecDocumentError(`source.text: the specification is larger than ${this.config.openapi.maxBytes} bytes`);
    const hash = contentHash([{ key: TEXT_KEY, text }]);
    const stored = await isStored(hash);
    if (stored) return { hash, format: guessFormat(text), rawText: text, filesystem: '{}', size, sourceUrl: null, known: true, ...stored };
    // Parsed in a worker: a large YAML text takes seconds.
    const parsed = await this.validator.parse(text, 'source.text');
    const key = parsed.format === 'json' ? 'openapi.json' : 'openapi.yaml';
    checkIsSpec(parsed, 'source.text');
    // A `$ref` to another file cannot resolve (a text has no origin): the validation lists it as a problem.
    const problems = await this.validator.validate([{ key, text }]);
    return {
      hash,
      format: parsed.format,
      rawText: text,
      filesystem: filesystemJson([{ key, json: parsed.json }]),
      size,
      sourceUrl: null,
      known: false,
      ...asStored(problems),
    };
  }

  private async fromUrl(url: string, isStored: StoredContent): Promise<LoadedSpec> {
    const { maxBytes, maxFiles, maxRefDepth, fetchTimeoutMs } = this.config.openapi;
    const signal = AbortSignal.timeout(fetchTimeoutMs);
    let total = 0;

    const fetchFile = async (target: string, depth: number, origin: string | undefined, refWhere: string | undefined): Promise<FetchedFile> => {
      let response;
      try {
        response = await this.outbound.get({ url: target, maxBytes: maxBytes - total, signal, accept: ACCEPT });
      } catch (error) {
        if (!(error instanceof OutboundError)) throw error;
        const why = error.reason === 'too-large' ? `the specification is larger than ${maxBytes} bytes` : error.message;
        if (refWhere) throw new SpecDocumentError(`${refWhere}: could not fetch ${target}: ${why}`);
        throw openApiError(error.reason === 'too-large' ? 'openapi.invalid' : 'openapi.fetch_failed', `source.url: could not fetch ${target}: ${why}`);
      }
      if (response.status < 200 || response.status > 299) {
        if (refWhere) throw new SpecDocumentError(`${refWhere}: could not fetch ${target}: HTTP ${response.status}`);
        throw openApiError('openapi.fetch_failed', `source.url: could not fetch ${target}: HTTP ${response.status}`);
      }
      // A redirect may not carry a referenced file to another origin.
      if (origin !== undefined && new URL(response.url).origin !== origin) {
        throw new SpecDocumentError(`${refWhere}: ${target} redirected to ${response.url}, outside the specification's origin ${origin}`);
      }
      total += response.body.length;
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(response.body);
      } catch {
        throw new SpecDocumentError(`${refWhere ?? 'source.url'}: ${target} is not UTF-8 text`);
      }
      const parsed = await this.validator.parse(text, target);
      return { key: '', url: response.url, text, parsed, depth };
    };

    const entry = await fetchFile(url, 0, undefined, undefined);
    checkIsSpec(entry.parsed, 'source.url');
    const origin = new URL(entry.url).origin;
    const base = new URL('.', entry.url);
    entry.key = keyOf(new URL(entry.url), base, true);
    const files = new Map<string, FetchedFile>([[fileUrl(entry.url), entry]]);
    const queue: FetchedFile[] = [entry];
    while (queue.length > 0) {
      const file = queue.shift() as FetchedFile;
      for (const found of file.parsed.refs) {
        const { file: part } = splitRef(found.ref);
        if (part === '') continue;
        const where = `${file === entry ? '' : `${file.key} `}${toPointer(found.path)}`;
        let target: URL;
        try {
          target = new URL(part, file.url);
        } catch {
          throw new SpecDocumentError(`${where}: "${found.ref}" is not a valid reference`);
        }
        if (target.origin !== origin) throw new SpecDocumentError(`${where}: "${found.ref}" points outside the specification's origin ${origin}`);
        const key = fileUrl(target.toString());
        if (files.has(key)) continue;
        if (file.depth + 1 > maxRefDepth) throw new SpecDocumentError(`${where}: "${found.ref}" goes deeper than ${maxRefDepth} levels of referenced files`);
        if (files.size + 1 > maxFiles) throw new SpecDocumentError(`${where}: the specification references more than ${maxFiles} files`);
        const fetched = await fetchFile(key, file.depth + 1, origin, where);
        fetched.key = keyOf(target, base, false);
        files.set(key, fetched);
        queue.push(fetched);
      }
    }

    const all = [...files.values()];
    const hash = contentHash(all.map((file) => ({ key: file.key, text: file.text })));
    const loaded = {
      hash,
      format: entry.parsed.format,
      rawText: entry.text,
      filesystem: filesystemJson(all.map((file) => ({ key: file.key, json: file.parsed.json }))),
      size: total,
      sourceUrl: entry.url,
    };
    const stored = await isStored(hash);
    if (stored) return { ...loaded, filesystem: '{}', known: true, ...stored };
    // The entry first: the worker bundles the others under it.
    const requested = new Map([...files].map(([asked, file]) => [file, asked]));
    const problems = await this.validator.validate(all.map((file) => ({ key: file.key, text: file.text, url: file.url, requested: requested.get(file) })));
    return { ...loaded, known: false, ...asStored(problems) };
  }
}

/** What parsing alone can refuse: a document that is not an object naming itself a specification. */
function checkIsSpec(parsed: ParsedSpecFile, where: string): void {
  if (!parsed.isObject) throw new SpecDocumentError(`${where}: not an OpenAPI document: its top level must be an object`);
  if (!parsed.isSpec) throw new SpecDocumentError(`${where}: not an OpenAPI document: its top level has no "openapi" or "swagger" member`);
}

/** The filesystem key of a file: its path relative to the entry file's folder (absolute path when above it). */
function keyOf(url: URL, base: URL, entry: boolean): string {
  const search = url.search;
  if (url.pathname.startsWith(base.pathname)) {
    const relative = decodeURIComponent(url.pathname.slice(base.pathname.length));
    return `${relative || (entry ? 'openapi.json' : 'index')}${search}`;
  }
  return `${decodeURIComponent(url.pathname)}${search}`;
}
