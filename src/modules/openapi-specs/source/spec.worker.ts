import { parentPort } from 'node:worker_threads';
import type { OpenApiFilesystem } from '../openapi-spec-content.entity';
import { OpenApiRenderProps, renderOpenApiMarkdown } from '../render/openapi-markdown';
import { findRefs, FoundRef, parseSpecText, prepareForValidation, SourceFile, SpecDocumentError, SpecFormat } from './spec-documents';
import { mergeProblems, SpecProblems, validateSpecDocument, MAX_STORED_PROBLEMS } from './spec-validation';

/** A job for the worker (see SpecWorkers). */
export type SpecJob =
  { kind: 'parse'; text: string; name: string } | { kind: 'validate'; files: SourceFile[] } | { kind: 'render'; filesystem: string; props: OpenApiRenderProps };

/**
 * One file parsed in the worker: its format, the document as JSON text (for the jsonb column),
 * whether its top is an object and whether that object says it is a specification (an `openapi` or
 * `swagger` member), its `$ref`s.
 */
export interface ParsedSpecFile {
  format: SpecFormat;
  json: string;
  isObject: boolean;
  isSpec: boolean;
  refs: FoundRef[];
}

/** The worker's answer: `ok`, with the markdown of a render or a validation's problems; or the refusal (`invalid`: the document's fault, a 400). */
export interface SpecJobAnswer {
  ok: boolean;
  markdown?: string;
  parsed?: ParsedSpecFile;
  problems?: SpecProblems;
  invalid?: boolean;
  message?: string;
}

/**
 * The OpenAPI worker: parses one file of a source (JSON or YAML, its `$ref`s), validates the files
 * it is sent (parse, `$ref` checks, the parser's validation; the problems found are answered, not thrown), or renders a computed page from a stored filesystem (JSON text, parsed here), off
 * the server's event loop. One job at a time.
 */
async function perform(job: SpecJob): Promise<SpecJobAnswer> {
  if (job.kind === 'parse') {
    const { format, document } = parseSpecText(job.text, job.name);
    const isObject = !!document && typeof document === 'object' && !Array.isArray(document);
    const isSpec = isObject && ('openapi' in (document as object) || 'swagger' in (document as object));
    return { ok: true, parsed: { format, json: JSON.stringify(document), isObject, isSpec, refs: isObject ? findRefs(document, job.name) : [] } };
  }
  if (job.kind === 'validate') {
    const { bundle, problems } = prepareForValidation(job.files);
    return { ok: true, problems: mergeProblems(problems, await validateSpecDocument(bundle, MAX_STORED_PROBLEMS - problems.length)) };
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
