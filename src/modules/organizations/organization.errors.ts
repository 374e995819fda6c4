import { DomainError } from '../../common/errors/domain-error';

/** Stable error codes of the organizations module (their HTTP statuses: `src/error-codes.ts`). */
export type OrganizationErrorCode =
  | 'organization.not_found'
  | 'organization.update_forbidden'
  /** `defaultContent` named a site that is not one of the organization's. */
  | 'organization.default_site_invalid'
  /** A merge rule names users who are not members of the organization. */
  | 'organization.merge_rules_invalid'
  /** A route's `@OrgRole('admin')` refused a member who is not an admin. */
  | 'organization.admin_required'
  /** A route's `@OrgRole('member')` refused a guest. */
  | 'organization.member_required';

/** The error to throw for a broken rule of the organizations module: `throw organizationError('organization.not_found', message)`. */
export const organizationError = (code: OrganizationErrorCode, message: string) => new DomainError(code, message);
