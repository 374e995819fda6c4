import { AppConfig } from '../../config/app-config';
import { pageDocument } from '../content/markdown/page-document';
import { prepareDocuments } from '../content/text-work/text-workers';
import type { EmailVisibility } from '../users/user.policy';
import { presentUser, UserJson } from '../users/user.presenter';
import type { Comment } from './comment.entity';
import { CommentCaller, commentPermissions, CommentPermissionsJson } from './comment.policy';
import type { CommentRow, ReplyRow } from './comment.read-model';
import type { CommentFormat } from './dto/comment-query.dto';
import type { ReactionGroup } from './reactions';
import type { User } from '../users/user.entity';
import { mapPage, Page } from '../../common/pagination/paginate';
import { MemberJson, presentMember } from '../members/member.presenter';
import type { MemberRow } from '../members/member.read-model';

/** A body as the caller asked for it: `{ markdown }`, or the public JSON document (`{ document }`). */
export type CommentBodyJson = { markdown: string } | { document: Record<string, unknown> };

export interface EmojiReactionJson {
  emoji: string;
  count: number;
  users: { user: UserJson; reactedAt: string }[];
}

export interface CommentTargetJson {
  space: string;
  revision: string;
  changeRequest?: string;
  page?: { id: string; title: string; emoji?: string; icon?: string; createdAt: string; updatedAt: string; path?: string; outdated: boolean };
  node?: { id: string; preview: string };
  review?: string;
}

/** `Comment` (section 2.4). */
export interface CommentJson {
  object: 'comment';
  id: string;
  postedBy: UserJson;
  postedAt: string;
  editedAt?: string;
  reactions: EmojiReactionJson[];
  replies: number;
  repliers: { user: UserJson; count: number; updatedAt: string }[];
  body: CommentBodyJson;
  target: CommentTargetJson;
  urls: { location: string };
  permissions: CommentPermissionsJson;
  status: 'open' | 'resolved';
  resolvedAt?: string;
  resolvedBy?: UserJson;
}

/** `CommentReply` (section 2.5). */
export interface CommentReplyJson {
  object: 'comment-reply';
  id: string;
  postedBy: UserJson;
  postedAt: string;
  editedAt?: string;
  reactions: EmojiReactionJson[];
  body: CommentBodyJson;
  urls: { location: string };
  permissions: CommentPermissionsJson;
}

/** What presenting needs beyond the row: who asks, in which format, and whose e-mails they may see. */
export interface CommentView {
  caller: CommentCaller;
  format: CommentFormat;
  config: AppConfig;
  emails: EmailVisibility;
}

/** Every user a comment or reply shows (for `UsersService.emailVisibility`, once per response). */
export function usersShownBy(rows: (CommentRow | ReplyRow)[]): string[] {
  return rows.flatMap((row) => [
    row.postedBy.id,
    ...('resolvedBy' in row && row.resolvedBy ? [row.resolvedBy.id] : []),
    ...('repliers' in row ? row.repliers.map((replier) => replier.user.id) : []),
    ...row.reactions.flatMap((group) => group.users.map(({ user }) => user.id)),
  ]);
}

export function presentComment(row: CommentRow, view: CommentView): CommentJson {
  const { comment } = row;
  const user = (value: User) => presentUser(value, view.config, view.emails);
  const json: CommentJson = {
    object: 'comment',
    id: comment.id,
    postedBy: user(row.postedBy),
    postedAt: comment.postedAt.toISOString(),
    reactions: presentReactions(row.reactions, view),
    replies: row.replies,
    repliers: row.repliers.map((replier) => ({ user: user(replier.user), count: replier.count, updatedAt: replier.updatedAt.toISOString() })),
    body: presentBody(comment.markdown, view.format),
    target: presentTarget(row),
    urls: { location: view.config.apiUrl(commentPath(comment)) },
    permissions: commentPermissions(view.caller, comment.postedBy),
    status: comment.status,
  };
  if (comment.editedAt) json.editedAt = comment.editedAt.toISOString();
  if (comment.status === 'resolved' && comment.resolvedAt && row.resolvedBy) {
    json.resolvedAt = comment.resolvedAt.toISOString();
    json.resolvedBy = user(row.resolvedBy);
  }
  return json;
}

export function presentReply(row: ReplyRow, view: CommentView): CommentReplyJson {
  const { reply } = row;
  const json: CommentReplyJson = {
    object: 'comment-reply',
    id: reply.id,
    postedBy: presentUser(row.postedBy, view.config, view.emails),
    postedAt: reply.postedAt.toISOString(),
    reactions: presentReactions(row.reactions, view),
    body: presentBody(reply.markdown, view.format),
    urls: { location: view.config.apiUrl(`${commentPath(row.comment)}/replies/${reply.id}`) },
    permissions: commentPermissions(view.caller, reply.postedBy),
  };
  if (reply.editedAt) json.editedAt = reply.editedAt.toISOString();
  return json;
}

function commentPath(comment: Comment): string {
  const base = `/v1/spaces/${comment.spaceId}`;
  return comment.changeRequestId ? `${base}/change-requests/${comment.changeRequestId}/comments/${comment.id}` : `${base}/comments/${comment.id}`;
}

function presentBody(markdown: string, format: CommentFormat): CommentBodyJson {
  return format === 'document' ? { document: pageDocument(markdown) } : { markdown };
}

function presentReactions(groups: ReactionGroup<User>[], view: CommentView): EmojiReactionJson[] {
  return groups.map((group) => ({
    emoji: group.emoji,
    count: group.count,
    users: group.users.map(({ user, reactedAt }) => ({ user: presentUser(user, view.config, view.emails), reactedAt: reactedAt.toISOString() })),
  }));
}

function presentTarget({ comment, page }: CommentRow): CommentTargetJson {
  const target: CommentTargetJson = { space: comment.spaceId, revision: comment.revisionId };
  if (comment.changeRequestId) target.changeRequest = comment.changeRequestId;
  if (page) {
    const { page: row, outdated } = page;
    target.page = { id: row.pageId, title: row.title, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(), outdated };
    if (row.emoji) target.page.emoji = row.emoji;
    if (row.icon) target.page.icon = row.icon;
    if (row.path) target.page.path = row.path;
  }
  if (comment.nodeId) target.node = { id: comment.nodeId, preview: comment.nodePreview ?? '' };
  if (comment.reviewId) target.review = comment.reviewId;
  return target;
}

/** Looks up whose e-mails a caller may see (`UsersService.emailVisibility`), handed in by the controllers. */
export type EmailLookup = (viewerId: string, userIds: string[]) => Promise<EmailVisibility>;

/**
 * The responses of both comment controllers (space, change request): one e-mail lookup per response
 * for every user it shows, then the pure presenters above.
 */
export class CommentResponses {
  constructor(
    private readonly emailsFor: EmailLookup,
    private readonly config: AppConfig,
  ) {}

  async comment(caller: User, permissions: CommentCaller['space'], format: CommentFormat, row: CommentRow): Promise<CommentJson> {
    return presentComment(row, await this.view(caller, permissions, format, [row]));
  }

  async comments(caller: User, permissions: CommentCaller['space'], format: CommentFormat, page: Page<CommentRow>): Promise<Page<CommentJson>> {
    const view = await this.view(caller, permissions, format, page.items);
    return mapPage(page, (row) => presentComment(row, view));
  }

  async reply(caller: User, permissions: CommentCaller['space'], format: CommentFormat, row: ReplyRow): Promise<CommentReplyJson> {
    return presentReply(row, await this.view(caller, permissions, format, [row]));
  }

  async replies(caller: User, permissions: CommentCaller['space'], format: CommentFormat, page: Page<ReplyRow>): Promise<Page<CommentReplyJson>> {
    const view = await this.view(caller, permissions, format, page.items);
    return mapPage(page, (row) => presentReply(row, view));
  }

  /** `commenters`: members as the members module presents them. */
  async members(caller: User, page: Page<MemberRow>): Promise<Page<MemberJson>> {
    const emails = await this.emailsFor(
      caller.id,
      page.items.map((row) => row.user.id),
    );
    return mapPage(page, (row) => presentMember(row, this.config, emails));
  }

  private async view(caller: User, permissions: CommentCaller['space'], format: CommentFormat, rows: (CommentRow | ReplyRow)[]): Promise<CommentView> {
    // Large bodies (a comment may hold 100,000 characters) are parsed in the text worker pool, not on the loop.
    if (format === 'document') await prepareDocuments(rows.map((row) => ('reply' in row ? row.reply.markdown : row.comment.markdown)));
    return { caller: { userId: caller.id, space: permissions }, format, config: this.config, emails: await this.emailsFor(caller.id, usersShownBy(rows)) };
  }
}
