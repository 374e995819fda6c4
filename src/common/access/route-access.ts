/**
 * What a route declares about its caller, written into the OpenAPI document as the `x-quire-access`
 * extension of each operation (so a reviewer reads it in the committed document, and the generated
 * access-matrix test builds its cases from it). The decorators that set it live with their guards:
 * `@OrgRole` (organizations), `@SpaceAction` and `@CollectionAction` (access).
 */
export const ROUTE_ACCESS_EXTENSION = 'x-quire-access';

/** Routes under `/v1/orgs/{organizationId}`: the least role in the organization (`guest`: any membership; `member`: any but guests). */
export type OrgRoleNeed = 'guest' | 'member' | 'admin';

export type RouteAccessDeclaration =
  { scope: 'organization'; role: OrgRoleNeed } | { scope: 'space'; action: string; includeDeleted?: boolean } | { scope: 'collection'; action: string };

/** The route parameters whose routes must declare their access. */
export const SCOPED_PARAMS = { organizationId: 'organization', spaceId: 'space', collectionId: 'collection' } as const;
