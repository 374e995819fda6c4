import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, paginate } from '../../../common/pagination/paginate';
import type { ListQueryDto } from '../../../common/pagination/list-query.dto';
import { ChangeRequestRequestedReviewer, ChangeRequestReview, ReviewStatus, SpaceMergeRules } from './review.entity';
import type { ContributorRow, LatestReview, ReviewRow } from './review.read-model';
import { NO_RULES, type MergeRulesStandalone } from '../../space-model/merge-rules';

/**
 * A review is outdated once the change request's head is no longer the revision it was made
 * against, once its reviewer submitted a newer review, or once its reviewer was requested again
 * after it (the public description: "superseded by a newer review request or submission").
 */
const OUTDATED = `(r.revision_id <> cr.revision
  OR EXISTS (SELECT 1 FROM change_request_reviews n WHERE n.change_request_id = r.change_request_id AND n.reviewer_id = r.reviewer_id AND n.seq > r.seq)
  OR EXISTS (SELECT 1 FROM change_request_requested_reviewers q WHERE q.change_request_id = r.change_request_id AND q.user_id = r.reviewer_id AND q.created_at > r.created_at))`;

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

  listRequested(changeRequestId: string, query: Pick<ListQueryDto, 'page' | 'limit'>): Promise<Page<ChangeRequestRequestedReviewer>> {
    const qb = this.dataSource.manager
      .createQueryBuilder(ChangeRequestRequestedReviewer, 'q')
      .where('q.change_request_id = :changeRequestId', { changeRequestId });
    return paginate<ChangeRequestRequestedReviewer>(qb, query, {
      list: 'change-request-requested-reviewers:created:asc',
      columns: ['q.created_at', 'q.user_id'],
      direction: 'ASC',
      keyOf: (row) => [row.createdAt, row.userId],
    });
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

  /** The organization's merge rules (what a space that inherits obeys). */
  async organizationMergeRules(organizationId: string, manager: EntityManager): Promise<MergeRulesStandalone> {
    const [row]: { merge_rules: MergeRulesStandalone }[] = await manager.query(`SELECT merge_rules FROM organizations WHERE id = $1`, [organizationId]);
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
