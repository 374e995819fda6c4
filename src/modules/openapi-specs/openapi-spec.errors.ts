import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the OpenAPI specs module and their HTTP statuses. */
export const OPEN_API_SPEC_ERRORS = {
  'openapi.spec_not_found': 404,
  'openapi.version_not_found': 404,
  /** A member without the organization's `createOpenAPISpec` permission tried to create or change a spec. */
  'openapi.forbidden': 403,
  'openapi.slug_taken': 409,
  /** The document could not be parsed, is not a valid OpenAPI or Swagger document, or breaks a bound. */
  'openapi.invalid': 400,
  /** A URL source (or a file it references) could not be fetched. */
  'openapi.fetch_failed': 400,
} as const satisfies ErrorStatusTable;

export type OpenApiSpecErrorCode = keyof typeof OPEN_API_SPEC_ERRORS;

/** The error to throw for a broken rule of the OpenAPI specs module. */
export const openApiError = (code: OpenApiSpecErrorCode, message: string) => new DomainError(code, message);
