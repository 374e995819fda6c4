/** Stable error codes of the organizations module (statuses: `modules/error-codes.ts`). */
export type OrganizationErrorCode = 'organization.not_found' | 'organization.update_forbidden';
