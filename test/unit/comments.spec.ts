import { spacePermissions } from '../../src/modules/access/access.policy';
import type { MemberRoleOrGuest } from '../../src/common/roles';
import { pageNodes } from '../../src/modules/comments/comment-nodes';
import { canDelete, canEdit, canReact, canResolve, CommentCaller, commentPermissions } from '../../src/modules/comments/comment.policy';
import { groupReactions } from '../../src/modules/comments/reactions';

const callerAt = (level: MemberRoleOrGuest, userId = 'me', editMode: 'live' | 'locked' = 'live'): CommentCaller => ({
  userId,
  space: spacePermissions(level, { editMode }),
});

describe('comment policy', () => {
  it.each([
    // level, author?, view, edit, reply, delete, resolve
    ['read', true, true, false, false, false, false],
    ['read', false, true, false, false, false, false],
    ['comment', true, true, true, true, true, true],
    ['comment', false, true, false, true, false, false],
    ['edit', false, true, false, true, false, false],
    ['review', false, true, false, true, false, true],
    ['review', true, true, true, true, true, true],
    ['create', false, true, false, true, false, true],
    ['admin', false, true, false, true, true, true],
    [null, true, false, false, false, false, false],
  ] as const)('%s (author: %s)', (level, author, view, edit, reply, del, resolve) => {
    const caller = callerAt(level);
    const authorId = author ? 'me' : 'someone-else';
    expect(commentPermissions(caller, authorId)).toEqual({ view, edit, reply, delete: del });
    expect(canEdit(caller, authorId)).toBe(edit);
    expect(canDelete(caller, authorId)).toBe(del);
    expect(canResolve(caller, authorId)).toBe(resolve);
    expect(canReact(caller)).toBe(reply);
  });

  it('is not changed by a locked space (discussion is not content)', () => {
    expect(commentPermissions(callerAt('comment', 'me', 'locked'), 'me')).toEqual({ view: true, edit: true, reply: true, delete: true });
    expect(canResolve(callerAt('review', 'me', 'locked'), 'other')).toBe(true);
  });
});

describe('groupReactions', () => {
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
  const record = (emoji: string, userId: string, second: number) => ({ emoji, userId, user: { id: userId }, reactedAt: at(second) });

  it('groups by emoji in order of first reaction, users oldest first, with their count', () => {
    const groups = groupReactions([record('🎉', 'b', 5), record('👍', 'b', 3), record('👍', 'a', 1), record('🎉', 'c', 2)]);
    expect(groups).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          { user: { id: 'a' }, reactedAt: at(1) },
          { user: { id: 'b' }, reactedAt: at(3) },
        ],
      },
      {
        emoji: '🎉',
        count: 2,
        users: [
          { user: { id: 'c' }, reactedAt: at(2) },
          { user: { id: 'b' }, reactedAt: at(5) },
        ],
      },
    ]);
  });

  it('counts the same user once per emoji, keeping their first reaction', () => {
    const groups = groupReactions([record('👍', 'a', 9), record('👍', 'a', 4), record('👍', 'b', 6)]);
    expect(groups).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          { user: { id: 'a' }, reactedAt: at(4) },
          { user: { id: 'b' }, reactedAt: at(6) },
        ],
      },
    ]);
  });

  it('answers no group for no reactions', () => {
    expect(groupReactions([])).toEqual([]);
  });
});

describe('pageNodes', () => {
  it('gives every heading its anchor (the document form’s data.id), repeated headings numbered, with its text', () => {
    expect(pageNodes('# Intro\n\ntext\n\n## Set *up*\n\n## Set up\n\n> ### Quoted `code`\n\n- item\n')).toEqual([
      { id: 'intro', preview: 'Intro' },
      { id: 'set-up', preview: 'Set up' },
      { id: 'set-up-1', preview: 'Set up' },
      { id: 'quoted-code', preview: 'Quoted code' },
    ]);
  });

  it('finds no node in a body without headings', () => {
    expect(pageNodes('Just a paragraph.\n\n- and a list')).toEqual([]);
    expect(pageNodes('')).toEqual([]);
  });
});
