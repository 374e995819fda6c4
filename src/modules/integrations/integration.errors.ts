import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the integrations module (their HTTP statuses: `src/error-codes.ts`). */
export type IntegrationErrorCode =
  | 'integration.not_found'
  | 'integration.publish_forbidden'
  | 'integration.name_taken'
  | 'integration.invalid_manifest'
  | 'integration.install_forbidden'
  | 'integration.installation_not_found'
  | 'integration.target_not_allowed'
  | 'integration.invalid_configuration'
  | 'integration.event_not_found'
  | 'integration.bad_render_request'
  | 'integration.script_failed'
  | 'integration.dev_forbidden'
  | 'integration.scope_forbidden';

/** The error to throw for a broken rule of the integrations module. */
export const integrationError = (code: IntegrationErrorCode, message: string) => new DomainError(code, message);
