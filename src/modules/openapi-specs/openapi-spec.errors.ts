import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the OpenAPI specs module (their HTTP statuses: `src/error-codes.ts`). */
export type OpenApiSpecErrorCode =
  | 'openapi.spec_not_found'
  | 'openapi.version_not_found'
  /** A member without the organization's `createOpenAPISpec` permission tried to create or change a spec. */
  | 'openapi.forbidden'
  | 'openapi.slug_taken'
  /** The document could not be parsed, is not a valid OpenAPI or Swagger document, or breaks a bound. */
  | 'openapi.invalid'
  /** A URL source (or a file it references) could not be fetched. */
  | 'openapi.fetch_failed';

/** The error to throw for a broken rule of the OpenAPI specs module. */
export const openApiError = (code: OpenApiSpecErrorCode, message: string) => new DomainError(code, message);
