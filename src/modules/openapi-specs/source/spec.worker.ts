import { parentPort } from 'node:worker_threads';
import type { OpenApiFilesystem } from '../openapi-spec-content.entity';
import { OpenApiRenderProps, renderOpenApiMarkdown } from '../render/openapi-markdown';
import { findRefs, FoundRef, parseSpecText, prepareForValidation, SourceFile, SpecDocumentError, SpecFormat } from './spec-documents';
import { validateSpecDocument } from './spec-validation';

/** A job for the worker (see SpecWorkers). */
export type SpecJob =
  { kind: 'parse'; text: string; name: string } | { kind: 'validate'; files: SourceFile[] } | { kind: 'render'; filesystem: string; props: OpenApiRenderProps };

/** One file parsed in the worker: its format, the document as JSON text (for the jsonb column), whether its top is an object, its `$ref`s. */
export interface ParsedSpecFile {
  format: SpecFormat;
  json: string;
  isObject: boolean;
  refs: FoundRef[];
}

/** The worker's answer: `ok`, with the markdown of a render; or the refusal (`invalid`: the document's fault, a 400). */
export interface SpecJobAnswer {
  ok: boolean;
  markdown?: string;
  parsed?: ParsedSpecFile;
  invalid?: boolean;
  message?: string;
}

/**
 * The OpenAPI worker: parses one file of a source (JSON or YAML, its `$ref`s), validates the files
 * it is sent (parse, `$ref` checks, the parser's validation), or renders a computed page from a stored filesystem (JSON text, parsed here), off
 * the server's event loop. One job at a time.
 */
async function perform(job: SpecJob): Promise<SpecJobAnswer> {
  if (job.kind === 'parse') {
    const { format, document } = parseSpecText(job.text, job.name);
    const isObject = !!document && typeof document === 'object' && !Array.isArray(document);
    return { ok: true, parsed: { format, json: JSON.stringify(document), isObject, refs: isObject ? findRefs(document, job.name) : [] } };
  }
  if (job.kind === 'validate') {
    await validateSpecDocument(prepareForValidation(job.files));
    return { ok: true };
  }
  const filesystem = JSON.parse(job.filesystem) as OpenApiFilesystem;
  return { ok: true, markdown: renderOpenApiMarkdown(filesystem ?? {}, job.props) };
}

const port = parentPort;
if (port) {
  port.on('message', (job: SpecJob) => {
    void (async () => {
      try {
        port.postMessage(await perform(job));
      } catch (error) {
        port.postMessage({ ok: false, invalid: error instanceof SpecDocumentError, message: (error as Error).message } satisfies SpecJobAnswer);
      }
    })();
  });
}
