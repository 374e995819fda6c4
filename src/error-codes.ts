import type { DomainErrorStatus } from './common/errors/domain-error';
import type { AccessErrorCode } from './modules/access/access.errors';
import type { AdminErrorCode } from './modules/admin/admin.errors';
import type { CollectionErrorCode } from './modules/collections/collection.errors';
import type { ContentErrorCode } from './modules/content/content.errors';
import type { IntegrationErrorCode } from './modules/integrations/integration.errors';
import type { InviteErrorCode } from './modules/invites/invite.errors';
import type { MemberErrorCode } from './modules/members/member.errors';
import type { OrganizationErrorCode } from './modules/organizations/organization.errors';
import type { SamlErrorCode } from './modules/saml/saml.errors';
import type { SpaceErrorCode } from './modules/spaces/space.errors';
import type { TeamErrorCode } from './modules/teams/team.errors';
import type { TranslationErrorCode } from './modules/translations/translation.errors';
import type { UserErrorCode } from './modules/users/user.errors';

/** Every stable error code: each module declares its own union in `<module>.errors.ts`; add a new module's here. */
export type ErrorCode =
  | UserErrorCode
  | OrganizationErrorCode
  | AdminErrorCode
  | MemberErrorCode
  | TeamErrorCode
  | InviteErrorCode
  | SamlErrorCode
  | TranslationErrorCode
  | AccessErrorCode
  | SpaceErrorCode
  | CollectionErrorCode
  | ContentErrorCode
  | IntegrationErrorCode;

/**
 * The one mapping from stable code to HTTP status, read by the exception filter (AppModule provides it
 * as ERROR_STATUSES). A `Record` over the whole union: the compiler rejects a code declared by a module
 * but missing here, and a key that no module declares. It lives at the top of the application, above
 * the modules whose codes it names, so no module imports it.
 */
export const ERROR_STATUS: Record<ErrorCode, DomainErrorStatus> = {
  'user.not_found': 404,

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

  'organization.not_found': 404,
  'organization.update_forbidden': 403,
  'organization.admin_required': 403,
  'organization.member_required': 403,

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
  'invite.not_found': 404,

  'saml.not_found': 404,
  'saml.list_forbidden': 403,
  'saml.view_forbidden': 403,
  'saml.manage_forbidden': 403,
  'saml.unknown_default_team': 400,

  'translation.not_found': 404,
  'translation.view_forbidden': 403,
  'translation.manage_forbidden': 403,

  'space.not_found': 404,
  'space.locked': 403,
  'space.action_forbidden': 403,
  'collection.not_found': 404,
  'collection.action_forbidden': 403,
  'collection.top_level_forbidden': 403,
  'access.member_spaces_forbidden': 403,
  'access.member_not_found': 404,
  'access.grant_empty': 400,
  'access.grant_unknown_user': 404,
  'access.grant_unknown_team': 404,
  'access.grant_not_found': 404,
  'access.transfer_same_organization': 400,
  'access.transfer_forbidden': 403,
  'access.transfer_target_not_found': 404,
  'access.transfer_target_forbidden': 403,

  'space.in_collection_outside_collection': 400,
  'space.retention_expired': 404,
  'space.not_deleted': 409,
  'space.move_empty': 400,
  'space.moved_meanwhile': 409,

  'collection.not_empty': 409,
  'collection.move_empty': 400,
  'collection.cycle': 400,
  'collection.position_self': 400,
  'collection.position_not_beside': 400,
  'collection.position_ambiguous': 400,
  'collection.position_missing': 400,

  'content.revision_not_found': 404,
  'content.page_not_found': 404,
  'content.file_not_found': 404,
  'content.file_data_missing': 404,
  'content.duplicate_slug': 400,
  'content.invalid_pages': 400,
  'content.import_bad_url': 400,
};
