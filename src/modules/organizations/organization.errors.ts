import { DomainError, type ErrorStatusTable } from '../../common/errors/domain-error';

/** Stable error codes of the organizations module and their HTTP statuses. */
export const ORGANIZATION_ERRORS = {
  'organization.not_found': 404,
  'organization.update_forbidden': 403,
  /** `defaultContent` named a site that is not one of the organization's. */
  'organization.default_site_invalid': 400,
  /** A merge rule names users who are not members of the organization. */
  'organization.merge_rules_invalid': 400,
  /** A route's `@OrgRole('admin')` refused a member who is not an admin. */
  'organization.admin_required': 403,
  /** A route's `@OrgRole('member')` refused a guest. */
  'organization.member_required': 403,
} as const satisfies ErrorStatusTable;

export type OrganizationErrorCode = keyof typeof ORGANIZATION_ERRORS;

/** The error to throw for a broken rule of the organizations module: `throw organizationError('organization.not_found', message)`. */
export const organizationError = (code: OrganizationErrorCode, message: string) => new DomainError(code, message);
