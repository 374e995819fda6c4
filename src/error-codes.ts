import type { DomainErrorStatus } from './common/errors/domain-error';
import type { AccessErrorCode } from './modules/access/access.errors';
import type { AdminErrorCode } from './modules/admin/admin.errors';
import type { CollectionErrorCode } from './modules/collections/collection.errors';
import type { CommentErrorCode } from './modules/comments/comment.errors';
import type { ChangeRequestErrorCode } from './modules/change-requests/change-request.errors';
import type { ContentErrorCode } from './modules/content/content.errors';
import type { AuditErrorCode } from './modules/audit/audit.errors';
import type { InsightsErrorCode } from './modules/insights/insights.errors';
import type { IntegrationErrorCode } from './modules/integrations/integration.errors';
import type { InviteErrorCode } from './modules/invites/invite.errors';
import type { MemberErrorCode } from './modules/members/member.errors';
import type { OpenApiSpecErrorCode } from './modules/openapi-specs/openapi-spec.errors';
import type { OrganizationErrorCode } from './modules/organizations/organization.errors';
import type { SamlErrorCode } from './modules/saml/saml.errors';
import type { PublishedErrorCode } from './modules/published/published.errors';
import type { SiteErrorCode } from './modules/sites/site.errors';
import type { SiteReadersErrorCode } from './modules/sites/site-readers.errors';
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
  | CommentErrorCode
  | SiteErrorCode
  | PublishedErrorCode
  | SiteReadersErrorCode
  | OpenApiSpecErrorCode
  | InsightsErrorCode
  | AuditErrorCode
  | ChangeRequestErrorCode
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
  'organization.default_site_invalid': 400,
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
  'content.reusable_content_not_found': 404,
  'content.computed_source_unsupported': 422,
  'content.invalid_computed_source': 400,
  'content.document_not_found': 404,
  'content.file_data_missing': 404,
  'content.duplicate_slug': 400,
  'content.invalid_pages': 400,
  'content.import_bad_url': 400,
  'content.file_url_invalid': 403,
  'content.file_url_expired': 403,
  'content.text_time_limit': 422,
  'content.git_bad_repository': 400,
  'comment.not_found': 404,
  'comment.reply_not_found': 404,
  'comment.edit_forbidden': 403,
  'comment.resolve_forbidden': 403,
  'comment.delete_forbidden': 403,
  'comment.unknown_page': 400,
  'comment.unknown_node': 400,

  'site.not_found': 404,
  'site.forbidden': 403,
  'site.space_not_found': 404,
  'site.section_not_found': 404,
  'site.section_group_not_found': 404,
  'site.share_link_not_found': 404,
  'site.invalid_structure': 400,
  'site.invalid_adaptive_schema': 400,
  'site.invalid_condition': 400,
  'site.invalid_customization': 400,
  'site.path_taken': 409,
  'site.no_site_spaces': 400,

  'published.not_found': 404,
  'published.site_token_forbidden': 403,
  'published.invalid_publishing_auth': 400,
  'site_redirect.not_found': 404,
  'site_redirect.invalid': 400,
  'site_redirect.source_taken': 409,
  'site_search.invalid_scope': 400,

  'openapi.spec_not_found': 404,
  'openapi.version_not_found': 404,
  'openapi.forbidden': 403,
  'openapi.slug_taken': 409,
  'openapi.invalid': 400,
  'openapi.fetch_failed': 400,

  'insights.site_not_found': 404,
  'insights.invalid_event': 400,
  'insights.invalid_query': 400,
  'audit_event.not_found': 404,

  'change_request.not_found': 404,
  'change_request.closed': 409,
  'change_request.merged': 409,
  'change_request.conflict': 409,
  'change_request.invalid_change': 400,
  'change_request.file_fetch_failed': 400,
  'change_request.pdf_page_required': 400,
  'change_request.pdf_failed': 422,
  'change_request.own_review': 403,
  'change_request.review_not_found': 404,
  'change_request.invalid_reviewers': 400,
  'change_request.merge_rule': 409,
};
