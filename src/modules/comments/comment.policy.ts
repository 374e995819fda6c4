import type { SpacePermissionsJson } from '../space-model/space-permissions';

/**
 * Who may do what with a comment or a reply, from the caller's permissions on the space (levels of
 * `access.policy.ts`) and whether they wrote it. The routes declare `comment` for every write (the
 * guard and the unit of work refuse callers below it); these rules decide the rest, and fill the
 * `permissions` of the JSON, so what a comment says a caller may do is what the API lets them do.
 *
 *   view     view (read)        anyone who can read the space reads its discussions
 *   reply    comment            posting, replying and reacting
 *   edit     comment + author   only the author changes the body
 *   delete   comment + author, or admin
 *   resolve  review, or comment + author
 */
export interface CommentCaller {
  userId: string;
  space: Pick<SpacePermissionsJson, 'view' | 'comment' | 'review' | 'admin'>;
}

export interface CommentPermissionsJson {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

const isAuthor = (caller: CommentCaller, authorId: string) => caller.userId === authorId;

export function commentPermissions(caller: CommentCaller, authorId: string): CommentPermissionsJson {
  return {
    view: caller.space.view,
    edit: canEdit(caller, authorId),
    reply: canReact(caller),
    delete: canDelete(caller, authorId),
  };
}

export function canEdit(caller: CommentCaller, authorId: string): boolean {
  return caller.space.comment && isAuthor(caller, authorId);
}

export function canDelete(caller: CommentCaller, authorId: string): boolean {
  return (caller.space.comment && isAuthor(caller, authorId)) || caller.space.admin;
}

export function canResolve(caller: CommentCaller, authorId: string): boolean {
  return caller.space.review || (caller.space.comment && isAuthor(caller, authorId));
}

export function canReact(caller: CommentCaller): boolean {
  return caller.space.comment;
}
