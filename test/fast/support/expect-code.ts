import { DomainError } from '../../../src/common/errors/domain-error';

/** Awaits `promise` and checks it fails with the domain error `code` (what the HTTP edge maps to a status). */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected the domain error ${code}, got ${error === undefined ? 'success' : String(error)}`);
  expect(error.code).toBe(code);
}
