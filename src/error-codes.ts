import type { ErrorStatusTable } from './common/errors/domain-error';
import { ACCESS_ERRORS } from './modules/access/access.errors';
import { ADMIN_ERRORS } from './modules/admin/admin.errors';
import { AUDIT_ERRORS } from './modules/audit/audit.errors';
import { CHANGE_REQUEST_ERRORS } from './modules/change-requests/change-request.errors';
import { COLLECTION_ERRORS } from './modules/collections/collection.errors';
import { COMMENT_ERRORS } from './modules/comments/comment.errors';
import { CONTENT_ERRORS } from './modules/content/content.errors';
import { INSIGHTS_ERRORS } from './modules/insights/insights.errors';
import { INTEGRATION_ERRORS } from './modules/integrations/integration.errors';
import { INVITE_ERRORS } from './modules/invites/invite.errors';
import { MEMBER_ERRORS } from './modules/members/member.errors';
import { OPEN_API_SPEC_ERRORS } from './modules/openapi-specs/openapi-spec.errors';
import { ORGANIZATION_ERRORS } from './modules/organizations/organization.errors';
import { PUBLISHED_ERRORS } from './modules/published/published.errors';
import { SAML_ERRORS } from './modules/saml/saml.errors';
import { SITE_READERS_ERRORS } from './modules/sites/site-readers.errors';
import { SITE_ERRORS } from './modules/sites/site.errors';
import { SPACE_ERRORS } from './modules/spaces/space.errors';
import { TEAM_ERRORS } from './modules/teams/team.errors';
import { TRANSLATION_ERRORS } from './modules/translations/translation.errors';
import { USER_ERRORS } from './modules/users/user.errors';

/**
 * The one mapping from stable code to HTTP status, read by the exception filter (AppModule provides it as
 * ERROR_STATUSES), composed from the modules' own tables: each `<module>.errors.ts` declares its codes with
 * their statuses (`TEAM_ERRORS = { 'team.not_found': 404, … }`), so no code exists without a status. A new
 * module's table is spread here; `test/unit/error-codes.spec.ts` fails for a table left out and for a code
 * two tables declare. It lives at the top of the application, above the modules, so no module imports it.
 */
export const ERROR_STATUS = Object.freeze({
  ...ACCESS_ERRORS,
  ...ADMIN_ERRORS,
  ...AUDIT_ERRORS,
  ...CHANGE_REQUEST_ERRORS,
  ...COLLECTION_ERRORS,
  ...COMMENT_ERRORS,
  ...CONTENT_ERRORS,
  ...INSIGHTS_ERRORS,
  ...INTEGRATION_ERRORS,
  ...INVITE_ERRORS,
  ...MEMBER_ERRORS,
  ...OPEN_API_SPEC_ERRORS,
  ...ORGANIZATION_ERRORS,
  ...PUBLISHED_ERRORS,
  ...SAML_ERRORS,
  ...SITE_READERS_ERRORS,
  ...SITE_ERRORS,
  ...SPACE_ERRORS,
  ...TEAM_ERRORS,
  ...TRANSLATION_ERRORS,
  ...USER_ERRORS,
} as const) satisfies ErrorStatusTable;

/** Every stable error code: the union of the modules' own. */
export type ErrorCode = keyof typeof ERROR_STATUS;
