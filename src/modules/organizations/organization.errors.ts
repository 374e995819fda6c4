import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the organizations module (their HTTP statuses: `src/error-codes.ts`). */
export type OrganizationErrorCode = 'organization.not_found' | 'organization.update_forbidden';

/** The error to throw for a broken rule of the organizations module: `throw organizationError('organization.not_found', message)`. */
export const organizationError = (code: OrganizationErrorCode, message: string) => new DomainError(code, message);
