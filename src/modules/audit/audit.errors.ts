import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the audit module (their HTTP statuses: `src/error-codes.ts`). */
export type AuditErrorCode = 'audit_event.not_found';

/** The error to throw for a broken rule of the audit module: `throw auditError('audit_event.not_found', message)`. */
export const auditError = (code: AuditErrorCode, message: string) => new DomainError(code, message);
