import { DomainError } from '../../../src/common/errors/domain-error';

/**
 * Awaits `work` and checks it fails with the domain error `code` (what the HTTP edge maps to a status). A
 * function is called first, for services that refuse before returning a promise. `message`, when given, tells
 * apart refusals sharing one code.
 */
export async function expectCode(work: Promise<unknown> | (() => unknown), code: string, message?: RegExp): Promise<void> {
  const promise = typeof work === 'function' ? Promise.resolve().then(work) : work;
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected the domain error ${code}, got ${error === undefined ? 'success' : String(error)}`);
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
}
