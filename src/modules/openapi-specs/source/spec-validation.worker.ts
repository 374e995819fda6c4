import { parentPort } from 'node:worker_threads';
import { prepareForValidation, SourceFile, SpecDocumentError } from './spec-documents';
import { validateSpecDocument } from './spec-validation';

/**
 * The validation worker (see SpecValidator): parses the files it is sent, checks their `$ref`s and
 * validates them, off the server's event loop. Answers `{ id, ok }` or `{ id, ok: false, invalid, message }`.
 */
const port = parentPort;
if (port) {
  port.on('message', (job: { id: number; files: SourceFile[] }) => {
    void (async () => {
      try {
        await validateSpecDocument(prepareForValidation(job.files));
        port.postMessage({ id: job.id, ok: true });
      } catch (error) {
        port.postMessage({ id: job.id, ok: false, invalid: error instanceof SpecDocumentError, message: (error as Error).message });
      }
    })();
  });
}
