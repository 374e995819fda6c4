import { MEMBER_ROLES, roleRank } from '../../common/roles';

/**
 * SQL fragments of the access model (the rules are written down in `access.policy.ts`). Each
 * computes a caller's effective level as a rank (see `roleRank`, 0 = none) in one statement:
 * ancestors are walked with a recursive CTE instead of one query per collection.
 *
 * They are correlated: the surrounding query must expose the space as `s` (or the collection as
 * `c`) and the caller's *enabled* membership in its organization as `m` (a LEFT JOIN, so `m.*` is
 * NULL for an outsider, who then has no level).
 */

/** `roleRank` in SQL, generated from the same table so the two can never disagree. */
export function rankSql(expression: string): string {
  return `(CASE ${expression} ${MEMBER_ROLES.map((role) => `WHEN '${role}' THEN ${roleRank(role)}`).join(' ')} ELSE 0 END)`;
}

/**
 * The strongest grant to the member `m` or to one of their teams among the grants matching
 * `target` (a condition on `g` that an index answers: one space, or a set of collections).
 */
function grantRankSql(target: string): string {
  return `COALESCE((SELECT max(${rankSql('g.role')}) FROM permission_grants g
      WHERE ${target}
        AND (g.user_id = m.user_id
          OR g.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = m.organization_id AND tm.user_id = m.user_id))), 0)`;
}

/** The effective rank of `m` on the space `s`. */
export const SPACE_RANK_SQL = `(WITH RECURSIVE ancestors (id, parent_id, default_level) AS (
    SELECT c.id, c.parent_id, c.default_level FROM collections c WHERE c.id = s.parent_id
    UNION
    SELECT c.id, c.parent_id, c.default_level FROM collections c JOIN ancestors a ON c.id = a.parent_id
  )
  SELECT GREATEST(
    CASE WHEN m.role IS NULL THEN 0
      ELSE GREATEST(${rankSql('m.role')}, ${rankSql('s.default_level')}, COALESCE((SELECT max(${rankSql('a.default_level')}) FROM ancestors a), 0))
    END,
    ${grantRankSql('g.space_id = s.id')},
    ${grantRankSql('g.collection_id IN (SELECT a.id FROM ancestors a)')}
  ))`;

/** The effective rank of `m` on the collection `c`. */
export const COLLECTION_RANK_SQL = `(WITH RECURSIVE chain (id, parent_id, default_level) AS (
    SELECT c.id, c.parent_id, c.default_level
    UNION
    SELECT p.id, p.parent_id, p.default_level FROM collections p JOIN chain ON p.id = chain.parent_id
  )
  SELECT GREATEST(
    CASE WHEN m.role IS NULL THEN 0
      ELSE GREATEST(${rankSql('m.role')}, COALESCE((SELECT max(${rankSql('chain.default_level')}) FROM chain), 0))
    END,
    ${grantRankSql('g.collection_id IN (SELECT chain.id FROM chain)')}
  ))`;

/**
 * Ids of the collections a guest reaches in organization `:accessOrg`: those granted to the user
 * `:accessUser` or their teams, and every collection below them. Members reach everything (their
 * role is at least `read`), so lists only apply this to guests.
 */
const GRANTED_COLLECTIONS_CTE = `granted (id) AS (
    SELECT g.collection_id FROM permission_grants g
      WHERE g.organization_id = :accessOrg AND g.collection_id IS NOT NULL
        AND (g.user_id = :accessUser
          OR g.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = :accessOrg AND tm.user_id = :accessUser))
    UNION
    SELECT child.id FROM collections child JOIN granted ON child.parent_id = granted.id
  )`;

/** Condition on a spaces alias: the guest `:accessUser` reaches the space through a grant. */
export function guestReachesSpaceSql(alias: string): string {
  return `${alias}.id IN (WITH RECURSIVE ${GRANTED_COLLECTIONS_CTE}
    SELECT inside.id FROM spaces inside WHERE inside.parent_id IN (SELECT id FROM granted)
    UNION
    SELECT g.space_id FROM permission_grants g
      WHERE g.organization_id = :accessOrg AND g.space_id IS NOT NULL
        AND (g.user_id = :accessUser
          OR g.team_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = :accessOrg AND tm.user_id = :accessUser)))`;
}

/** Condition on a collections alias: the guest `:accessUser` reaches the collection through a grant. */
export function guestReachesCollectionSql(alias: string): string {
  return `${alias}.id IN (WITH RECURSIVE ${GRANTED_COLLECTIONS_CTE} SELECT id FROM granted)`;
}
