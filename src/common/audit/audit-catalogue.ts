/**
 * The audit catalogue: every action an event may carry, with its label (what
 * `listOrganizationAuditEventActions` lists and docs/modules/audit.md shows), and the action each
 * writing route records, keyed by the route's public operationId. A route that writes and is missing
 * here fails `test/e2e/audit.e2e-spec.ts`; a POST that only reads says so with `NOT_A_CHANGE`.
 */

/** Where a route's target id comes from: a path parameter, or (`+table`) the row the request inserted into that table. */
export type TargetSource = string;

export interface AuditedRoute {
  action: string;
  /** The target's type, as events show it (`space`, `comment`…). */
  target: string;
  id: TargetSource;
  /**
   * The route's writes are single statements that commit no transaction of their own: the audit
   * interceptor runs its handler in one transaction, which its event joins (audit.interceptor.ts).
   */
  transaction?: true;
  /**
   * The route's change is written by the space unit of work, in the first transaction of the request,
   * and its target is the path's id or a row that transaction inserts through TypeORM: the unit of
   * work binds the request's scope (opened by the audit guard) to that transaction, whose commit hook
   * records the event. No interceptor and no async context around the handler (audit.guard.ts).
   */
  unitOfWork?: true;
  /**
   * The table of the target's row (by the target id), read before the handler runs when the request
   * itself loads it by SQL rather than through TypeORM: the `before` values of its event's changes.
   */
  table?: string;
  /**
   * Narrower actions for some bodies: the first whose `field` the body sets to `value` replaces `action`, when the
   * target's row as the request loaded it before writing did not hold `was.not` in `was.field` already (a comment
   * resolved that was open). Without that row, the route's own action.
   */
  when?: ReadonlyArray<{ field: string; value: unknown; action: string; was: { field: string; not: unknown } }>;
}

export interface NotAudited {
  notAudited: string;
}

const NOT_A_CHANGE = (why: string): NotAudited => ({ notAudited: why });
const a = (action: string, target: string, id: TargetSource): AuditedRoute => ({ action, target, id });
/** The route's target row is read from `table` before the handler, for its `before` values. */
const withBefore = (route: AuditedRoute, table: string): AuditedRoute => ({ ...route, table });
/** A route whose handler runs in one transaction with its event (its writes commit no transaction of their own). */
const tx = (action: string, target: string, id: TargetSource): AuditedRoute => ({ action, target, id, transaction: true });
/** A route whose change the space unit of work writes and records (see `AuditedRoute.unitOfWork`). */
const uow = (action: string, target: string, id: TargetSource): AuditedRoute => ({ action, target, id, unitOfWork: true });
/** A comment's update that sets `resolved` is its resolution, or its reopening. */
const RESOLVES = [
  { field: 'resolved', value: true, action: 'comment.resolved', was: { field: 'status', not: 'resolved' } },
  { field: 'resolved', value: false, action: 'comment.reopened', was: { field: 'status', not: 'open' } },
] as const;
const commentUpdate = (): AuditedRoute => ({ ...uow('comment.updated', 'comment', 'commentId'), when: RESOLVES });

/**
 * The action a request to `route` records: the route's, or the narrower one its body asks for and its target's row
 * before the write (the row of `loaded` whose id is `targetId`) shows it changes (`AuditedRoute.when`).
 */
export function actionOf(
  route: AuditedRoute,
  body: unknown,
  loaded: ReadonlyArray<{ row: Record<string, unknown> }> | undefined,
  targetId: string | undefined,
): string {
  if (!route.when || targetId === undefined || !body || typeof body !== 'object') return route.action;
  const target = loaded?.find(({ row }) => row.id === targetId)?.row;
  if (!target) return route.action;
  const fields = body as Record<string, unknown>;
  return route.when.find(({ field, value, was }) => fields[field] === value && target[was.field] !== was.not)?.action ?? route.action;
}

/** Every action a route may record: its own and its narrower ones. */
export function actionsOf(route: AuditedRoute): string[] {
  return [route.action, ...(route.when ?? []).map(({ action }) => action)];
}

export const AUDITED_ROUTES: Record<string, AuditedRoute | NotAudited> = {
  // Organizations, members, teams, invites, SAML, translations
  createOrganization: a('organization.created', 'organization', '+organizations'),
  updateOrganizationById: withBefore(tx('organization.updated', 'organization', 'organizationId'), 'organizations'),
  updateMemberInOrganizationById: a('member.role_updated', 'user', 'userId'),
  removeMemberFromOrganizationById: a('member.removed', 'user', 'userId'),
  updateOrganizationMemberLastSeenAt: NOT_A_CHANGE('presence ping: moves the caller’s last-seen time, changes nothing anyone configured'),
  setUserAsSSOMemberForOrganization: tx('member.sso_set', 'user', 'userId'),
  createOrganizationTeam: a('team.created', 'team', '+teams'),
  updateTeamInOrganizationById: tx('team.updated', 'team', 'teamId'),
  removeTeamFromOrganizationById: tx('team.deleted', 'team', 'teamId'),
  updateMembersInOrganizationTeam: a('team.members_updated', 'team', 'teamId'),
  addMemberToOrganizationTeamById: tx('team.member_added', 'team', 'teamId'),
  deleteMemberFromOrganizationTeamById: tx('team.member_removed', 'team', 'teamId'),
  inviteUsersToOrganization: a('invite.created', 'organization', 'organizationId'),
  acceptAuthenticatedUserInvite: a('invite.accepted', 'invite', 'inviteId'),
  declineAuthenticatedUserInvite: a('invite.declined', 'invite', 'inviteId'),
  createOrganizationSAMLProvider: tx('saml_provider.created', 'saml-provider', '+saml_providers'),
  updateOrganizationSAMLProvider: tx('saml_provider.updated', 'saml-provider', 'samlProviderId'),
  deleteOrganizationSAMLProvider: tx('saml_provider.deleted', 'saml-provider', 'samlProviderId'),
  createTranslation: tx('translation.created', 'translation', '+translation_settings'),
  updateTranslation: tx('translation.updated', 'translation', 'translationSettingsId'),
  deleteTranslation: tx('translation.deleted', 'translation', 'translationSettingsId'),

  // Permissions of spaces and collections
  inviteToSpace: a('space.permissions_granted', 'space', 'spaceId'),
  updateUserPermissionInSpace: tx('space.user_permission_updated', 'space', 'spaceId'),
  removeUserFromSpace: tx('space.user_permission_removed', 'space', 'spaceId'),
  updateTeamPermissionInSpace: tx('space.team_permission_updated', 'space', 'spaceId'),
  removeTeamFromSpace: tx('space.team_permission_removed', 'space', 'spaceId'),
  inviteToCollection: a('collection.permissions_granted', 'collection', 'collectionId'),
  updateUserPermissionInCollection: tx('collection.user_permission_updated', 'collection', 'collectionId'),
  removeUserFromCollection: tx('collection.user_permission_removed', 'collection', 'collectionId'),
  updateTeamPermissionInCollection: tx('collection.team_permission_updated', 'collection', 'collectionId'),
  removeTeamFromCollection: tx('collection.team_permission_removed', 'collection', 'collectionId'),

  // Collections and spaces
  createCollection: a('collection.created', 'collection', '+collections'),
  updateCollectionById: tx('collection.updated', 'collection', 'collectionId'),
  deleteCollectionById: a('collection.deleted', 'collection', 'collectionId'),
  moveCollection: a('collection.moved', 'collection', 'collectionId'),
  transferCollection: a('collection.transferred', 'collection', 'collectionId'),
  createSpace: a('space.created', 'space', '+spaces'),
  updateSpaceById: uow('space.updated', 'space', 'spaceId'),
  deleteSpaceById: uow('space.deleted', 'space', 'spaceId'),
  restoreSpace: uow('space.restored', 'space', 'spaceId'),
  duplicateSpace: a('space.duplicated', 'space', 'spaceId'),
  moveSpace: a('space.moved', 'space', 'spaceId'),
  transferSpace: a('space.transferred', 'space', 'spaceId'),

  // Content
  getComputedDocument: NOT_A_CHANGE('computes a document from its source and returns it; stores nothing'),
  importContentInSpace: a('space.content_imported', 'space', 'spaceId'),
  exportToGitRepository: a('space.git_exported', 'space', 'spaceId'),
  importGitRepository: a('space.git_imported', 'space', 'spaceId'),

  // Change requests
  createChangeRequest: uow('change_request.created', 'change-request', '+change_requests'),
  updateChangeRequestById: uow('change_request.updated', 'change-request', 'changeRequestId'),
  mergeChangeRequest: uow('change_request.merged', 'change-request', 'changeRequestId'),
  updateChangeRequest: uow('change_request.updated_from_main', 'change-request', 'changeRequestId'),
  updateChangeRequestContent: uow('change_request.content_updated', 'change-request', 'changeRequestId'),
  importContentInChangeRequest: a('change_request.content_imported', 'change-request', 'changeRequestId'),
  importContentInChangeRequestPage: a('change_request.page_imported', 'change-request', 'changeRequestId'),
  submitChangeRequestReview: uow('change_request.reviewed', 'change-request', 'changeRequestId'),
  requestReviewersForChangeRequest: uow('change_request.reviewers_requested', 'change-request', 'changeRequestId'),
  removeRequestedReviewerFromChangeRequest: uow('change_request.reviewer_removed', 'change-request', 'changeRequestId'),
  updateSpaceMergeRules: uow('space.merge_rules_updated', 'space', 'spaceId'),

  // Comments
  postCommentInSpace: uow('comment.created', 'comment', '+comments'),
  updateCommentInSpace: commentUpdate(),
  deleteCommentInSpace: uow('comment.deleted', 'comment', 'commentId'),
  postCommentReplyInSpace: uow('comment_reply.created', 'comment-reply', '+comment_replies'),
  updateCommentReplyInSpace: uow('comment_reply.updated', 'comment-reply', 'commentReplyId'),
  deleteCommentReplyInSpace: uow('comment_reply.deleted', 'comment-reply', 'commentReplyId'),
  postCommentInChangeRequest: uow('comment.created', 'comment', '+comments'),
  updateCommentInChangeRequest: commentUpdate(),
  deleteCommentInChangeRequest: uow('comment.deleted', 'comment', 'commentId'),
  postCommentReplyInChangeRequest: uow('comment_reply.created', 'comment-reply', '+comment_replies'),
  updateCommentReplyInChangeRequest: uow('comment_reply.updated', 'comment-reply', 'commentReplyId'),
  deleteCommentReplyInChangeRequest: uow('comment_reply.deleted', 'comment-reply', 'commentReplyId'),

  // Sites and everything under them
  createSite: a('site.created', 'site', '+sites'),
  updateSiteById: a('site.updated', 'site', 'siteId'),
  deleteSiteById: a('site.deleted', 'site', 'siteId'),
  publishSite: a('site.published', 'site', 'siteId'),
  unpublishSite: a('site.unpublished', 'site', 'siteId'),
  updateSiteAdaptiveSchema: a('site.adaptive_schema_updated', 'site', 'siteId'),
  sortSiteStructure: a('site.structure_sorted', 'site', 'siteId'),
  updateSiteCustomizationById: a('site.customization_updated', 'site', 'siteId'),
  createSiteShareLink: a('site_share_link.created', 'site-share-link', '+site_share_links'),
  updateSiteShareLinkById: a('site_share_link.updated', 'site-share-link', 'shareLinkId'),
  deleteSiteShareLinkById: a('site_share_link.deleted', 'site-share-link', 'shareLinkId'),
  addSpaceToSite: a('site_space.added', 'site-space', '+site_spaces'),
  updateSiteSpaceById: a('site_space.updated', 'site-space', 'siteSpaceId'),
  deleteSiteSpaceById: a('site_space.removed', 'site-space', 'siteSpaceId'),
  moveSiteSpace: a('site_space.moved', 'site-space', 'siteSpaceId'),
  duplicateSiteSpace: a('site_space.duplicated', 'site-space', 'siteSpaceId'),
  overrideSiteSpaceCustomizationById: a('site_space.customization_updated', 'site-space', 'siteSpaceId'),
  deleteSiteSpaceCustomizationById: a('site_space.customization_reset', 'site-space', 'siteSpaceId'),
  addSectionToSite: a('site_section.added', 'site-section', '+site_sections'),
  updateSiteSectionById: a('site_section.updated', 'site-section', 'siteSectionId'),
  deleteSiteSectionById: a('site_section.removed', 'site-section', 'siteSectionId'),
  moveSiteSection: a('site_section.moved', 'site-section', 'siteSectionId'),
  addSectionGroupToSite: a('site_section_group.added', 'site-section-group', '+site_section_groups'),
  updateSiteSectionGroupById: a('site_section_group.updated', 'site-section-group', 'siteSectionGroupId'),
  deleteSiteSectionGroupById: a('site_section_group.removed', 'site-section-group', 'siteSectionGroupId'),
  addSectionToSiteSectionGroup: a('site_section_group.section_added', 'site-section-group', 'siteSectionGroupId'),
  removeSectionFromSiteSectionGroup: a('site_section_group.section_removed', 'site-section-group', 'siteSectionGroupId'),
  moveSiteSectionGroup: a('site_section_group.moved', 'site-section-group', 'siteSectionGroupId'),
  createSiteRedirect: a('site_redirect.created', 'site-redirect', '+site_redirects'),
  bulkUpsertSiteRedirects: a('site_redirect.bulk_upserted', 'site', 'siteId'),
  updateSiteRedirectById: withBefore(a('site_redirect.updated', 'site-redirect', 'siteRedirectId'), 'site_redirects'),
  deleteSiteRedirectById: a('site_redirect.deleted', 'site-redirect', 'siteRedirectId'),
  searchSiteContent: NOT_A_CHANGE('a search: reads the site’s index'),
  prewarmSiteSearch: NOT_A_CHANGE('loads the site’s search index into memory; changes nothing stored'),
  updateSitePublishingAuthById: a('site.publishing_auth_updated', 'site', 'siteId'),
  regenerateSitePublishingAuthById: a('site.publishing_auth_regenerated', 'site', 'siteId'),
  trackEventsInSiteById: NOT_A_CHANGE('visitor analytics, kept by insights; not a change of the organization'),
  aggregateSiteEvents: NOT_A_CHANGE('an analytics query'),
  resolvePublishedContentByUrl: NOT_A_CHANGE('resolves a published URL; a read'),

  // OpenAPI specs
  createOpenAPISpec: a('openapi_spec.created', 'openapi-spec', '+openapi_specs'),
  createOrUpdateOpenAPISpecBySlug: a('openapi_spec.saved', 'openapi-spec', 'specSlug'),
  updateOpenAPISpecBySlug: a('openapi_spec.updated', 'openapi-spec', 'specSlug'),
  deleteOpenAPISpecBySlug: a('openapi_spec.deleted', 'openapi-spec', 'specSlug'),

  // Integrations
  publishIntegration: a('integration.published', 'integration', 'integrationName'),
  unpublishIntegration: a('integration.unpublished', 'integration', 'integrationName'),
  setIntegrationDevelopmentMode: a('integration.development_mode_enabled', 'integration', 'integrationName'),
  disableIntegrationDevelopmentMode: tx('integration.development_mode_disabled', 'integration', 'integrationName'),
  installIntegration: a('integration_installation.created', 'integration-installation', '+integration_installations'),
  updateIntegrationInstallation: a('integration_installation.updated', 'integration-installation', 'installationId'),
  uninstallIntegration: a('integration_installation.deleted', 'integration-installation', 'installationId'),
  grantIntegrationInstallationScopes: a('integration_installation.scopes_granted', 'integration-installation', 'installationId'),
  installIntegrationOnSpace: a('integration_installation.space_added', 'integration-installation', 'installationId'),
  updateIntegrationSpaceInstallation: a('integration_installation.space_updated', 'integration-installation', 'installationId'),
  uninstallIntegrationFromSpace: a('integration_installation.space_removed', 'integration-installation', 'installationId'),
  installIntegrationOnSite: a('integration_installation.site_added', 'integration-installation', 'installationId'),
  updateIntegrationSiteInstallation: a('integration_installation.site_updated', 'integration-installation', 'installationId'),
  uninstallIntegrationFromSite: a('integration_installation.site_removed', 'integration-installation', 'installationId'),
  renderIntegrationUIWithPost: NOT_A_CHANGE('renders an integration’s UI; the script may write, through routes of its own'),
};

/** Actions recorded outside the route table (by the system, not a route). */
export const SYSTEM_ACTIONS: Record<string, string> = {
  // Decision 0064: failed authentications of an address past the lockout, with a token that belongs to the organization.
  'sign_in.failed_above_lockout': 'Sign-in failures above the lockout',
  // The hourly purge of spaces deleted longer ago than SPACE_RETENTION_DAYS: removed for good, with what they own.
  'space.purged': 'Space purged after its retention',
};

/** Actions the server's operator records through the admin CLI and the start-up bootstrap (admin.service.ts), not a route. */
export const OPERATOR_ACTIONS: Record<string, string> = {
  'member.added': 'Member added by the operator',
  'api_token.created': 'API token created',
  'api_token.revoked': 'API token revoked',
};

function labelOf(action: string): string {
  const [resource, verb] = action.split('.');
  const words = (text: string) => text.replace(/_/g, ' ');
  const noun = words(resource).replace(/^./, (c) => c.toUpperCase());
  return `${noun} ${words(verb)}`;
}

/** Every action with its label, sorted by action: the catalogue `listOrganizationAuditEventActions` lists. */
export const AUDIT_ACTIONS: ReadonlyArray<{ id: string; label: string }> = (() => {
  const labels = new Map<string, string>();
  for (const route of Object.values(AUDITED_ROUTES)) if ('action' in route) for (const action of actionsOf(route)) labels.set(action, labelOf(action));
  for (const [action, label] of Object.entries({ ...SYSTEM_ACTIONS, ...OPERATOR_ACTIONS })) labels.set(action, label);
  return [...labels.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([id, label]) => ({ id, label }));
})();

export function isAuditedRoute(route: AuditedRoute | NotAudited | undefined): route is AuditedRoute {
  return route !== undefined && 'action' in route;
}
