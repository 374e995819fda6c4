import { Inject, Injectable, Optional } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../../common/ids';
import type { Page } from '../../../common/pagination/paginate';
import { AppConfig } from '../../../config/app-config';
import { AccessRepository } from '../../access/access.repository';
import { SpaceAccess } from '../../access/space-access.service';
import { SpaceUnitOfWork, type SpaceWrite } from '../../space-writes/space-unit-of-work';
import { User } from '../../users/user.entity';
import { UsersService } from '../../users/users.service';
import { TeamsRepository } from '../../teams/teams.repository';
import { ChangeRequest } from '../change-request.entity';
import { changeRequestError } from '../change-request.errors';
import { acceptsChanges, CHANGE_REQUEST_POLICY } from '../change-request.policy';
import { ChangeRequestsRepository } from '../change-requests.repository';
import { ChangeRequestsService } from '../change-requests.service';
import { ContributorsQueryDto, ListReviewsQueryDto, MAX_REVIEW_COMMENT, MergeRulesDto, RequestReviewersDto, SubmitReviewDto } from './dto/review.dto';
import { MergeRulesSettings, NO_MERGE_RULES } from './review.read-model';
import type { ContributorRow, MergeRulesContextView, PeopleContext, RequestRow, ReviewRow } from './review.read-model';

type CommentFormat = 'markdown' | 'document';

/** A review as its routes answer it: the row, the people it names, its comment (if any and not deleted). */
export interface ReviewResult {
  cr: ChangeRequest;
  row: ReviewRow;
  people: PeopleContext;
  comments: Map<string, ReviewCommentJson>;
}
import { ReviewsRepository } from './reviews.repository';
import { REVIEW_COMMENTS, type ReviewCommentJson, type ReviewCommentsPort } from './review-comments.port';

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
    private readonly teams: TeamsRepository,
    private readonly config: AppConfig,
    @Optional() @Inject(REVIEW_COMMENTS) private readonly reviewComments?: ReviewCommentsPort,
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
      comments: await this.comments(user, access, cr, query.format, page.items),
    };
  }

  async get(user: User, access: SpaceAccess, idOrNumber: string, reviewId: string, format?: CommentFormat) {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const row = await this.reviews.get(cr.id, reviewId);
    if (!row) throw changeRequestError('change_request.review_not_found', `Review ${reviewId} not found on change request ${cr.number}`);
    return {
      cr,
      row,
      people: await this.people(user, [row.review.reviewerId, row.review.requestedBy]),
      comments: await this.comments(user, access, cr, format, [row]),
    };
  }

  /**
   * A review of the change request's head as it is now. The reviewer leaves the requested list;
   * the author may not approve their own change request (403); a merged or archived one takes no
   * review (409).
   */
  async submit(user: User, access: SpaceAccess, idOrNumber: string, dto: SubmitReviewDto): Promise<ReviewResult> {
    const comment = reviewComment(dto.comment);
    if (comment !== null && !this.reviewComments) throw changeRequestError('change_request.invalid_change', 'comment: review comments are not available');
    const written = await this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.submit, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      if (!acceptsChanges(cr)) throw changeRequestError('change_request.closed', `Change request ${cr.number} is ${cr.status}: it takes no review`);
      if (dto.status === 'approved' && cr.createdBy === user.id)
        throw changeRequestError('change_request.own_review', `You created change request ${cr.number}: you cannot approve it`);
      // The review answers the reviewer's own request and those of their teams; `requestedBy` is who asked them in person, else their team first.
      const request = await this.reviews.unrequest(cr.id, user.id, write.em);
      const teamRequesters = await this.reviews.unrequestTeamsOf(cr.id, user.id, write.em);
      const id = newId();
      await this.reviews.insert(
        {
          id,
          changeRequestId: cr.id,
          reviewerId: user.id,
          requestedBy: request ? request.requestedBy : (teamRequesters[0] ?? null),
          status: dto.status,
          revisionId: cr.revision,
        },
        write.em,
      );
      if (comment !== null) await this.reviewComments?.post(write, cr, id, comment, user);
      const row = (await this.reviews.get(cr.id, id, write.em)) as ReviewRow;
      return { cr, row, people: await this.people(user, [user.id, row.review.requestedBy]), permissions: write.access.permissions };
    });
    // Presented once committed, as the comment routes would show it.
    const { permissions, ...result } = written;
    return { ...result, comments: await this.comments(user, { permissions }, written.cr, undefined, [written.row]) };
  }

  async listRequested(user: User, access: SpaceAccess, idOrNumber: string, query: ContributorsQueryDto) {
    const cr = await this.changeRequests.resolve(access.space.id, idOrNumber);
    const page = await this.reviews.listRequested(cr.id, query);
    const people = await this.people(
      user,
      page.items.flatMap((row) => [row.kind === 'user' ? row.reviewerId : null, row.requestedBy]),
    );
    return { page, people: await this.withTeams(people, user, access, page.items) };
  }

  /**
   * Asks each user to review (again: a new request supersedes their earlier reviews), and each team
   * (`teams`, a Quire extension: the public body names users only) until one of its members reviews.
   * Every user must be able to view the space and must not be the author, every team must be one of
   * the organization's (400 naming them; nothing written).
   */
  request(user: User, access: SpaceAccess, idOrNumber: string, dto: RequestReviewersDto) {
    if (dto.description !== undefined)
      throw changeRequestError('change_request.invalid_reviewers', 'description: change request descriptions are not supported');
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.request, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      if (!acceptsChanges(cr)) throw changeRequestError('change_request.closed', `Change request ${cr.number} is ${cr.status}: it takes no review request`);
      const userIds = [...new Set(dto.users)];
      const teamIds = [...new Set(dto.teams ?? [])];
      if (userIds.length === 0 && teamIds.length === 0)
        throw changeRequestError('change_request.invalid_reviewers', 'users: at least one user (or team) to request');
      const refused: string[] = (await this.reviews.unknownTeams(write.space.organizationId, teamIds, write.em)).map(
        (id) => `team ${id} (not a team of the organization)`,
      );
      for (const userId of userIds) {
        if (userId === cr.createdBy) refused.push(`${userId} (the author)`);
        else if (!(await this.canView(userId, write.space.id, write.em))) refused.push(`${userId} (cannot view the space)`);
      }
      if (refused.length > 0) throw changeRequestError('change_request.invalid_reviewers', `users: cannot request ${refused.join(', ')}`);
      if (dto.subject !== undefined) await this.crRows.update(cr.id, { subject: dto.subject }, write.em);
      const users = userIds.length > 0 ? await this.reviews.request(cr.id, userIds, user.id, cr.revision, write.em) : [];
      const rows: RequestRow[] = [
        ...users.map((row) => ({
          kind: 'user' as const,
          reviewerId: row.userId,
          requestedBy: row.requestedBy,
          revisionId: row.revisionId,
          createdAt: row.createdAt,
        })),
        ...(await this.reviews.requestTeams(cr.id, teamIds, user.id, cr.revision, write.em)),
      ];
      return { rows, people: await this.withTeams(await this.people(user, [user.id, ...userIds]), user, access, rows) };
    });
  }

  /**
   * true when the user (or the team: the path's `userId` may name a requested team) was requested and
   * no longer is (205), false when neither was (204).
   */
  unrequest(user: User, access: SpaceAccess, idOrNumber: string, userId: string): Promise<boolean> {
    return this.spaceWrites.run(access.space.id, user, REVIEW_POLICY.request, async (write) => {
      const cr = await this.changeRequests.resolve(write.space.id, idOrNumber, write.em, true);
      if ((await this.reviews.unrequest(cr.id, userId, write.em)) !== null) return true;
      return this.reviews.unrequestTeam(cr.id, userId, write.em);
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

  /** The comments of these reviews, as the comment routes present them to `user` (none without the comments module). */
  private async comments(
    user: User,
    access: Pick<SpaceAccess, 'permissions'>,
    cr: ChangeRequest,
    format: CommentFormat | undefined,
    rows: ReviewRow[],
  ): Promise<Map<string, ReviewCommentJson>> {
    if (!this.reviewComments || rows.length === 0) return new Map();
    return this.reviewComments.shown(
      user,
      access.permissions,
      format ?? 'markdown',
      cr,
      rows.map((row) => row.review.id),
    );
  }

  /**
   * What a custom merge rule reads, under the merge's space lock: the space, the change request,
   * every review posted on it (newest first, `outdated` set) and the merger, to be presented to the
   * merger as the public `MergeRulesEvaluationContext` (`presentMergeRulesContext`).
   */
  async mergeRulesContext(user: User, write: SpaceWrite, cr: ChangeRequest): Promise<MergeRulesContextView> {
    const rows = await this.reviews.all(cr.id, write.em);
    const people = await this.people(user, [user.id, ...rows.flatMap(({ review }) => [review.reviewerId, review.requestedBy])]);
    return {
      space: write.space,
      permissions: write.access.permissions,
      changeRequest: await this.changeRequests.view(user, cr, write.access, write.space.revisionId),
      reviews: { cr, rows, people, comments: await this.comments(user, write.access, cr, undefined, rows) },
      actor: people.users.get(user.id) ?? user,
    };
  }

  /** Adds the teams among `rows` to the context (with counts and the caller's role in each, for `Team`). */
  private async withTeams(people: PeopleContext, user: User, access: SpaceAccess, rows: RequestRow[]): Promise<PeopleContext> {
    const teamIds = rows.filter((row) => row.kind === 'team').map((row) => row.reviewerId);
    if (teamIds.length === 0) return people;
    return { ...people, teams: { rows: await this.teams.findMany(access.space.organizationId, teamIds, user.id), organizationRole: access.organizationRole } };
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
