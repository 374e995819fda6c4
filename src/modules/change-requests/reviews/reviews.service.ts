import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import type { Page } from '../../../common/pagination/paginate';
import { AppConfig } from '../../../config/app-config';
import { AccessRepository } from '../../access/access.repository';
import { SpaceAccess } from '../../access/space-access.service';
import { SpaceUnitOfWork } from '../../space-writes/space-unit-of-work';
import { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { ChangeRequest } from '../change-request.entity';
import { changeRequestError } from '../change-request.errors';
import { acceptsChanges, CHANGE_REQUEST_POLICY } from '../change-request.policy';
import { ChangeRequestsRepository } from '../change-requests.repository';
import { ChangeRequestsService } from '../change-requests.service';
import { ContributorsQueryDto, ListReviewsQueryDto, MAX_REVIEW_COMMENT, MergeRulesDto, RequestReviewersDto, SubmitReviewDto } from './dto/review.dto';
import { MergeRulesSettings, NO_MERGE_RULES } from './review.read-model';
import type { ContributorRow, PeopleContext, ReviewRow } from './review.read-model';
import { ReviewsRepository } from './reviews.repository';

/** What each review action needs on the space: `review` to submit, `edit` to ask reviewers, `view` to read, `admin` for the rules. */
export const REVIEW_POLICY = {
  read: CHANGE_REQUEST_POLICY.read,
  submit: 'review',
  request: CHANGE_REQUEST_POLICY.write,
  rules: 'admin',
} as const;

/**
 * Reviews of change requests, requested reviewers, contributors, and the space's merge rules.
 * Writes run in the space's unit of work, like merges: a review and a merge of one space never
 * interleave, so the rules a merge checks are the reviews committed before it.
 */
@Injectable()
export class ReviewsService {
  constructor(
    private readonly spaceWrites: SpaceUnitOfWork,
    private readonly changeRequests: ChangeRequestsService,
    private readonly crRows: ChangeRequestsRepository,
    private readonly reviews: ReviewsRepository,
    private readonly accessRows: AccessRepository,
    private readonly usersService: UsersService,
    private readonly config: AppConfig,
  ) {}

  async list(user: User, access: SpaceAccess, idOrNumber: string, query: ListReviewsQueryDto) {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const page = await this.reviews.list(cr.id, query.outdated, query);
    return {
      cr,
      page,
      people: await this.people(
        user,
        page.items.flatMap(({ review }) => [review.reviewerId, review.requestedBy]),
      ),
    };
  }

  async get(user: User, access: SpaceAccess, idOrNumber: string, reviewId: string) {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const row = await this.reviews.get(cr.id, reviewId);
    if (!row) throw changeRequestError('change_request.review_not_found', `Review ${reviewId} not found on change request ${cr.number}`);
    return { cr, row, people: await this.people(user, [row.review.reviewerId, row.review.requestedBy]) };
  }

  /**
   * A review of the change request's head as it is now. The reviewer leaves the requested list;
   * the author may not approve their own change request (403); a merged or archived one takes no
   * review (409).
   */
  submit(user: User, access: SpaceAccess, idOrNumber: string, dto: SubmitReviewDto): Promise<{ cr: ChangeRequest; row: ReviewRow; people: PeopleContext }> {
    const comment = reviewComment(dto.comment);
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.submit, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      if (!acceptsChanges(cr)) throw changeRequestError('change_request.closed', `Change request ${cr.number} is ${cr.status}: it takes no review`);
      if (dto.status === 'approved' && cr.createdBy === user.id)
        throw changeRequestError('change_request.own_review', `You created change request ${cr.number}: you cannot approve it`);
      const request = await this.reviews.unrequest(cr.id, user.id, write.em);
      const id = newId();
      await this.reviews.insert(
        {
          id,
          changeRequestId: cr.id,
          reviewerId: user.id,
          requestedBy: request?.requestedBy ?? null,
          status: dto.status,
          revisionId: cr.revision,
          commentMarkdown: comment,
        },
        write.em,
      );
      const row = (await this.reviews.get(cr.id, id, write.em)) as ReviewRow;
      return { cr, row, people: await this.people(user, [user.id, row.review.requestedBy]) };
    });
  }

  async listRequested(user: User, access: SpaceAccess, idOrNumber: string, query: ContributorsQueryDto) {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const page = await this.reviews.listRequested(cr.id, query);
    return {
      page,
      people: await this.people(
        user,
        page.items.flatMap((row) => [row.userId, row.requestedBy]),
      ),
    };
  }

  /**
   * Asks each user to review (again: a new request supersedes their earlier reviews). Every user must
   * be able to view the space and must not be the author (400 naming them; nothing written).
   */
  request(user: User, access: SpaceAccess, idOrNumber: string, dto: RequestReviewersDto) {
    if (dto.description !== undefined)
      throw changeRequestError('change_request.invalid_reviewers', 'description: change request descriptions are not supported');
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.request, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      if (!acceptsChanges(cr)) throw changeRequestError('change_request.closed', `Change request ${cr.number} is ${cr.status}: it takes no review request`);
      const userIds = [...new Set(dto.users)];
      const refused: string[] = [];
      for (const userId of userIds) {
        if (userId === cr.createdBy) refused.push(`${userId} (the author)`);
        else if (!(await this.canView(userId, write.space.id, write.em))) refused.push(`${userId} (cannot view the space)`);
      }
      if (refused.length > 0) throw changeRequestError('change_request.invalid_reviewers', `users: cannot request ${refused.join(', ')}`);
      if (dto.subject !== undefined) await this.crRows.update(cr.id, { subject: dto.subject }, write.em);
      const rows = await this.reviews.request(cr.id, userIds, user.id, cr.revision, write.em);
      return { rows, people: await this.people(user, [user.id, ...userIds]) };
    });
  }

  /** true when the user was requested and no longer is (205), false when they were not requested (204). */
  unrequest(user: User, access: SpaceAccess, idOrNumber: string, userId: string): Promise<boolean> {
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.request, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      return (await this.reviews.unrequest(cr.id, userId, write.em)) !== null;
    });
  }

  async contributors(
    user: User,
    access: SpaceAccess,
    idOrNumber: string,
    query: ContributorsQueryDto,
  ): Promise<{ page: Page<ContributorRow>; people: PeopleContext }> {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const page = await this.reviews.contributors(cr.id, query);
    return {
      page,
      people: await this.people(
        user,
        page.items.map((row) => row.userId),
      ),
    };
  }

  async mergeRules(access: SpaceAccess): Promise<MergeRulesSettings> {
    return (await this.reviews.mergeRules(access.space.id)) ?? NO_MERGE_RULES;
  }

  setMergeRules(user: User, access: SpaceAccess, dto: MergeRulesDto): Promise<MergeRulesSettings> {
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.rules, async (write) => {
      const current = (await this.reviews.mergeRules(write.space.id, write.em)) ?? NO_MERGE_RULES;
      return this.reviews.saveMergeRules(
        {
          spaceId: write.space.id,
          requiredApprovals: dto.requiredApprovals ?? current.requiredApprovals,
        },
        write.em,
      );
    });
  }

  private async canView(userId: string, spaceId: string, em: EntityManager): Promise<boolean> {
    const found = await this.accessRows.findSpace(userId, spaceId, em);
    return !!found && found.member && found.rank > 0;
  }

  private async people(viewer: User, ids: (string | null)[]): Promise<PeopleContext> {
    const users = await this.crRows.users(ids);
    return { users, emails: await this.usersService.emailVisibility(viewer.id, [...users.keys()]), config: this.config };
  }
}

/** The review's comment: a markdown document (`{ markdown }`), or nothing (`{}`). JSON documents have no writer here. */
function reviewComment(comment: Record<string, unknown> | undefined): string | null {
  if (comment === undefined || Object.keys(comment).length === 0) return null;
  const markdown = comment.markdown;
  if (typeof markdown !== 'string' || Object.keys(comment).length !== 1)
    throw changeRequestError('change_request.invalid_change', 'comment: must be { markdown: string } (JSON documents are not supported)');
  if (markdown.length > MAX_REVIEW_COMMENT)
    throw changeRequestError('change_request.invalid_change', `comment.markdown: at most ${MAX_REVIEW_COMMENT} characters`);
  return markdown;
}
