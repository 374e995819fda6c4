import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, paginate } from '../../../common/pagination/paginate';
import type { ListQueryDto } from '../../../common/pagination/list-query.dto';
import {
  ChangeRequestRequestedReviewer,
  ChangeRequestRequestedTeam,
  ChangeRequestReviewRequest,
  ChangeRequestReview,
  ReviewStatus,
  SpaceMergeRules,
} from './review.entity';
import type { ContributorRow, LatestReview, RequestRow, ReviewRow } from './review.read-model';
import { NO_RULES, type MergeRulesStandalone } from '../../space-model/merge-rules';

/**
 * A review is outdated once the change request's head is no longer the revision it was made
 * against, once its reviewer submitted a newer review, or once its reviewer was requested again
 * after it, in person or through a team they are a member of (the public description: "superseded
 * by a newer review request or submission"). A request counts while it stands, as a user's does: a
 * team's is answered by its first member's review (which then stands for the team) or removed.
 */
const OUTDATED = `(r.revision_id <> cr.revision
  OR EXISTS (SELECT 1 FROM change_request_reviews n WHERE n.change_request_id = r.change_request_id AND n.reviewer_id = r.reviewer_id AND n.seq > r.seq)
  OR EXISTS (SELECT 1 FROM change_request_requested_reviewers q WHERE q.change_request_id = r.change_request_id AND q.user_id = r.reviewer_id AND q.created_at > r.created_at)
  OR EXISTS (SELECT 1 FROM change_request_requested_teams q JOIN team_members m ON m.team_id = q.team_id
              WHERE q.change_request_id = r.change_request_id AND m.user_id = r.reviewer_id AND q.created_at > r.created_at))`;

/** Every query of reviews, requested reviewers, contributors and merge rules. */
@Injectable()
export class ReviewsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first; keyset on (created_at, id); `outdated` filters when given. */
  list(changeRequestId: string, outdated: boolean | undefined, query: Pick<ListQueryDto, 'page' | 'limit'>): Promise<Page<ReviewRow>> {
    const qb = this.reviews().where('r.change_request_id = :changeRequestId', { changeRequestId });
    if (outdated !== undefined) qb.andWhere(outdated ? OUTDATED : `NOT ${OUTDATED}`);
    return paginate<ReviewRow>(qb, query, {
      list: 'change-request-reviews:created:desc',
      columns: ['r.created_at', 'r.id'],
      direction: 'DESC',
      keyOf: (row) => [row.review.createdAt, row.review.id],
      fetch: (rows) => withOutdated(rows),
    });
  }

  async get(changeRequestId: string, reviewId: string, manager?: EntityManager): Promise<ReviewRow | null> {
    const rows = await withOutdated(this.reviews(manager).where('r.change_request_id = :changeRequestId AND r.id = :reviewId', { changeRequestId, reviewId }));
    return rows[0] ?? null;
  }

  /** Every review of the change request, newest first (what a custom merge rule reads as `reviews`). */
  all(changeRequestId: string, manager: EntityManager): Promise<ReviewRow[]> {
    return withOutdated(this.reviews(manager).where('r.change_request_id = :changeRequestId', { changeRequestId }).orderBy('r.seq', 'DESC'));
  }

  async insert(review: Omit<ChangeRequestReview, 'createdAt' | 'updatedAt'>, manager: EntityManager): Promise<void> {
    await manager.insert(ChangeRequestReview, review);
  }

  /** Each reviewer's latest review of the change request (by submission order). */
  async latestByReviewer(changeRequestId: string, manager: EntityManager): Promise<LatestReview[]> {
    const rows: { reviewer_id: string; status: ReviewStatus; revision_id: string; outdated: boolean }[] = await manager.query(
      `SELECT DISTINCT ON (r.reviewer_id) r.reviewer_id, r.status, r.revision_id, ${OUTDATED} AS outdated
         FROM change_request_reviews r JOIN change_requests cr ON cr.id = r.change_request_id
        WHERE r.change_request_id = $1 ORDER BY r.reviewer_id, r.seq DESC`,
      [changeRequestId],
    );
    return rows.map((row) => ({ reviewerId: row.reviewer_id, status: row.status, revisionId: row.revision_id, outdated: row.outdated }));
  }

  /** Users and teams asked to review, oldest request first; keyset on (created_at, reviewer id). */
  listRequested(changeRequestId: string, query: Pick<ListQueryDto, 'page' | 'limit'>): Promise<Page<RequestRow>> {
    const qb = this.dataSource.manager.createQueryBuilder(ChangeRequestReviewRequest, 'q').where('q.change_request_id = :changeRequestId', { changeRequestId });
    return paginate<RequestRow>(qb, query, {
      list: 'change-request-requested-reviewers:created:asc',
      columns: ['q.created_at', 'q.reviewer_id'],
      direction: 'ASC',
      keyOf: (row) => [row.createdAt, row.reviewerId],
    });
  }

  /** Requests (or requests again) each team; answers the rows. */
  async requestTeams(changeRequestId: string, teamIds: string[], requestedBy: string, revisionId: string, manager: EntityManager): Promise<RequestRow[]> {
    if (teamIds.length === 0) return [];
    await manager.query(
      `INSERT INTO change_request_requested_teams (change_request_id, team_id, requested_by, revision_id)
       SELECT $1, unnest($2::text[]), $3, $4
       ON CONFLICT (change_request_id, team_id) DO UPDATE SET requested_by = excluded.requested_by, revision_id = excluded.revision_id, created_at = now()`,
      [changeRequestId, teamIds, requestedBy, revisionId],
    );
    const rows = await manager
      .createQueryBuilder(ChangeRequestRequestedTeam, 'q')
      .where('q.change_request_id = :changeRequestId AND q.team_id = ANY(:teamIds)', { changeRequestId, teamIds })
      .orderBy('q.team_id')
      .getMany();
    return rows.map((row) => ({ kind: 'team', reviewerId: row.teamId, requestedBy: row.requestedBy, revisionId: row.revisionId, createdAt: row.createdAt }));
  }

  /**
   * Removes the requests of the teams `userId` is a member of (a member's review answers their team's
   * request); answers who had asked, earliest request first.
   */
  async unrequestTeamsOf(changeRequestId: string, userId: string, manager: EntityManager): Promise<(string | null)[]> {
    const [rows]: [{ requested_by: string | null; created_at: Date }[], number] = await manager.query(
      `DELETE FROM change_request_requested_teams q USING team_members m
        WHERE q.change_request_id = $1 AND m.team_id = q.team_id AND m.user_id = $2
       RETURNING q.requested_by, q.created_at`,
      [changeRequestId, userId],
    );
    return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime()).map((row) => row.requested_by);
  }

  /** Removes the team's request; true when it was requested. */
  async unrequestTeam(changeRequestId: string, teamId: string, manager: EntityManager): Promise<boolean> {
    const [, count]: [unknown[], number] = await manager.query(`DELETE FROM change_request_requested_teams WHERE change_request_id = $1 AND team_id = $2`, [
      changeRequestId,
      teamId,
    ]);
    return count > 0;
  }

  /** The ids among `teamIds` that are not teams of the organization. */
  async unknownTeams(organizationId: string, teamIds: string[], manager: EntityManager): Promise<string[]> {
    if (teamIds.length === 0) return [];
    const rows: { id: string }[] = await manager.query(
      `SELECT x.id FROM unnest($2::text[]) AS x(id) WHERE NOT EXISTS (SELECT 1 FROM teams t WHERE t.organization_id = $1 AND t.id = x.id) ORDER BY x.id`,
      [organizationId, teamIds],
    );
    return rows.map((row) => row.id);
  }

  /** Requests (or requests again: a new date, revision and requester) each user; answers the rows. */
  async request(
    changeRequestId: string,
    userIds: string[],
    requestedBy: string,
    revisionId: string,
    manager: EntityManager,
  ): Promise<ChangeRequestRequestedReviewer[]> {
    await manager.query(
      `INSERT INTO change_request_requested_reviewers (change_request_id, user_id, requested_by, revision_id)
       SELECT $1, unnest($2::text[]), $3, $4
       ON CONFLICT (change_request_id, user_id) DO UPDATE SET requested_by = excluded.requested_by, revision_id = excluded.revision_id, created_at = now()`,
      [changeRequestId, userIds, requestedBy, revisionId],
    );
    return manager
      .createQueryBuilder(ChangeRequestRequestedReviewer, 'q')
      .where('q.change_request_id = :changeRequestId AND q.user_id = ANY(:userIds)', { changeRequestId, userIds })
      .orderBy('q.user_id')
      .getMany();
  }

  /** Removes the request; answers the removed row (null when the user was not requested). */
  async unrequest(changeRequestId: string, userId: string, manager: EntityManager): Promise<ChangeRequestRequestedReviewer | null> {
    const [rows]: [Record<string, unknown>[], number] = await manager.query(
      `DELETE FROM change_request_requested_reviewers WHERE change_request_id = $1 AND user_id = $2 RETURNING requested_by`,
      [changeRequestId, userId],
    );
    return rows.length > 0 ? ({ changeRequestId, userId, requestedBy: rows[0].requested_by } as ChangeRequestRequestedReviewer) : null;
  }

  /** Contributors who edited (or created) the change request, most recent first; keyset on (updated_at, user_id). */
  contributors(changeRequestId: string, query: Pick<ListQueryDto, 'page' | 'limit'>): Promise<Page<ContributorRow>> {
    const qb = this.dataSource.manager
      .createQueryBuilder()
      .select('c.user_id', 'userId')
      .addSelect('c.edits', 'edits')
      .addSelect('c.updated_at', 'updatedAt')
      .from('change_request_contributors', 'c')
      .where('c.change_request_id = :changeRequestId', { changeRequestId });
    return paginate<ContributorRow>(qb, query, {
      list: 'change-request-contributors:updated:desc',
      columns: ['c.updated_at', 'c.user_id'],
      direction: 'DESC',
      keyOf: (row) => [row.updatedAt, row.userId],
      fetch: (rows) => rows.getRawMany(),
    });
  }

  async mergeRules(spaceId: string, manager: EntityManager = this.dataSource.manager): Promise<SpaceMergeRules | null> {
    return manager.findOneBy(SpaceMergeRules, { spaceId });
  }

  async saveMergeRules(rules: Omit<SpaceMergeRules, 'updatedAt'>, manager: EntityManager): Promise<SpaceMergeRules> {
    await manager.query(
      `INSERT INTO space_merge_rules (space_id, required_approvals) VALUES ($1, $2)
       ON CONFLICT (space_id) DO UPDATE SET required_approvals = excluded.required_approvals, updated_at = now()`,
      [rules.spaceId, rules.requiredApprovals],
    );
    return manager.findOneByOrFail(SpaceMergeRules, { spaceId: rules.spaceId });
  }

  /**
   * The organization's merge rules (what a space that inherits obeys), read `FOR SHARE` by the merge
   * under its space lock: an organization PATCH in flight (its UPDATE locks the row) is waited for and
   * its rules are the ones checked, and a PATCH arriving meanwhile waits for the merge to commit.
   */
  async organizationMergeRules(organizationId: string, manager: EntityManager): Promise<MergeRulesStandalone> {
    const [row]: { merge_rules: MergeRulesStandalone }[] = await manager.query(`SELECT merge_rules FROM organizations WHERE id = $1 FOR SHARE`, [
      organizationId,
    ]);
    return row?.merge_rules ?? NO_RULES;
  }

  private reviews(manager: EntityManager = this.dataSource.manager) {
    return manager.createQueryBuilder(ChangeRequestReview, 'r').innerJoin('change_requests', 'cr', 'cr.id = r.change_request_id');
  }
}

async function withOutdated(qb: ReturnType<EntityManager['createQueryBuilder']>): Promise<ReviewRow[]> {
  const { entities, raw } = await qb.addSelect(OUTDATED, 'outdated').getRawAndEntities();
  const outdated = new Map(raw.map((row: { r_id: string; outdated: boolean }) => [row.r_id, row.outdated]));
  return entities.map((review) => ({ review: review as ChangeRequestReview, outdated: outdated.get((review as ChangeRequestReview).id) === true }));
}
