import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the SAML module and their HTTP statuses. */
export const SAML_ERRORS = {
  'saml.not_found': 404,
  'saml.list_forbidden': 403,
  'saml.view_forbidden': 403,
  'saml.manage_forbidden': 403,
  'saml.unknown_default_team': 400,
} as const satisfies ErrorStatusTable;

export type SamlErrorCode = keyof typeof SAML_ERRORS;

/** The error to throw for a broken rule of the SAML module: `throw samlError('saml.not_found', message)`. */
export const samlError = (code: SamlErrorCode, message: string) => new DomainError(code, message);
