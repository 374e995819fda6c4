import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the SAML module (their HTTP statuses: `src/error-codes.ts`). */
export type SamlErrorCode = 'saml.not_found' | 'saml.list_forbidden' | 'saml.view_forbidden' | 'saml.manage_forbidden' | 'saml.unknown_default_team';

/** The error to throw for a broken rule of the SAML module: `throw samlError('saml.not_found', message)`. */
export const samlError = (code: SamlErrorCode, message: string) => new DomainError(code, message);
