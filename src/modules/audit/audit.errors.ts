import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the audit module and their HTTP statuses. */
export const AUDIT_ERRORS = {
  'audit_event.not_found': 404,
} as const satisfies ErrorStatusTable;

export type AuditErrorCode = keyof typeof AUDIT_ERRORS;

/** The error to throw for a broken rule of the audit module: `throw auditError('audit_event.not_found', message)`. */
export const auditError = (code: AuditErrorCode, message: string) => new DomainError(code, message);
