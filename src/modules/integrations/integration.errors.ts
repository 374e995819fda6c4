import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the integrations module and their HTTP statuses. */
export const INTEGRATION_ERRORS = {
  'integration.not_found': 404,
  'integration.publish_forbidden': 403,
  'integration.name_taken': 409,
  'integration.invalid_manifest': 400,
  'integration.install_forbidden': 403,
  'integration.installation_not_found': 404,
  'integration.target_not_allowed': 400,
  'integration.invalid_configuration': 400,
  'integration.event_not_found': 404,
  'integration.bad_render_request': 400,
  'integration.script_failed': 502,
  'integration.dev_forbidden': 403,
  'integration.scope_forbidden': 403,
} as const satisfies ErrorStatusTable;

export type IntegrationErrorCode = keyof typeof INTEGRATION_ERRORS;

/** The error to throw for a broken rule of the integrations module. */
export const integrationError = (code: IntegrationErrorCode, message: string) => new DomainError(code, message);
