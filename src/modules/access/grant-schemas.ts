import { listSchemaOf, publicListSchema, publicSchema } from '../../common/openapi/public-schema';

/** Response schemas of the grant lists, by reference to the public description. */
export const USER_GRANTS_SCHEMA = publicListSchema('UserContentPermission');

/** The public description writes the team item inline (`{ permission, team }`), so it is spelled out here. */
export const TEAM_GRANTS_SCHEMA = listSchemaOf({
  type: 'object',
  required: ['permission', 'team'],
  properties: { permission: publicSchema('MemberRole'), team: publicSchema('OrganizationTeam') },
});
