import { DomainError, DomainErrorStatus } from '../common/errors/domain-error';
import type { AdminErrorCode } from './admin/admin.errors';
import type { InviteErrorCode } from './invites/invite.errors';
import type { MemberErrorCode } from './members/member.errors';
import type { OrganizationErrorCode } from './organizations/organization.errors';
import type { SamlErrorCode } from './saml/saml.errors';
import type { TeamErrorCode } from './teams/team.errors';
import type { TranslationErrorCode } from './translations/translation.errors';
import type { UserErrorCode } from './users/user.errors';

/** Every stable error code: each module declares its own union in `<module>.errors.ts`. */
export type ErrorCode =
  UserErrorCode | OrganizationErrorCode | AdminErrorCode | MemberErrorCode | TeamErrorCode | InviteErrorCode | SamlErrorCode | TranslationErrorCode;

/**
 * The one mapping from stable code to HTTP status. A `Record` over the whole union: the compiler
 * rejects a code declared by a module but missing here, and a key that no module declares.
 */
export const ERROR_STATUS: Record<ErrorCode, DomainErrorStatus> = {
  'user.not_found': 404,

  'organization.not_found': 404,
  'organization.update_forbidden': 403,

  'admin.already_member': 400,

  'member.not_found': 404,
  'member.list_forbidden': 403,
  'member.view_forbidden': 403,
  'member.update_forbidden': 403,
  'member.remove_forbidden': 403,
  'member.last_admin': 409,

  'team.not_found': 404,
  'team.list_forbidden': 403,
  'team.view_forbidden': 403,
  'team.manage_forbidden': 403,
  'team.members_forbidden': 403,
  'team.unknown_members': 400,

  'invite.forbidden': 403,

  'saml.not_found': 404,
  'saml.list_forbidden': 403,
  'saml.view_forbidden': 403,
  'saml.manage_forbidden': 403,
  'saml.unknown_default_team': 400,

  'translation.not_found': 404,
  'translation.view_forbidden': 403,
  'translation.manage_forbidden': 403,
};

/** The error to throw for a broken rule: `throw domainError('team.not_found', \`Team ${id} not found\`)`. */
export function domainError(code: ErrorCode, message: string): DomainError {
  return new DomainError(code, ERROR_STATUS[code], message);
}
