/** A stored reaction: one user's emoji on one comment or reply. */
export interface ReactionRecord<U> {
  emoji: string;
  user: U;
  userId: string;
  reactedAt: Date;
}

/** The public `EmojiReaction`: the users who reacted with one emoji, and how many they are. */
export interface ReactionGroup<U> {
  emoji: string;
  count: number;
  users: { user: U; reactedAt: Date }[];
}

/**
 * Groups reactions by emoji, each user counted once per emoji (their earliest reaction kept, should
 * the same pair come twice). Groups come in the order of their first reaction, users oldest first.
 */
export function groupReactions<U>(records: ReactionRecord<U>[]): ReactionGroup<U>[] {
  const sorted = [...records].sort((a, b) => a.reactedAt.getTime() - b.reactedAt.getTime() || a.userId.localeCompare(b.userId));
  const groups = new Map<string, { group: ReactionGroup<U>; seen: Set<string> }>();
  for (const record of sorted) {
    let entry = groups.get(record.emoji);
    if (!entry) {
      entry = { group: { emoji: record.emoji, count: 0, users: [] }, seen: new Set() };
      groups.set(record.emoji, entry);
    }
    if (entry.seen.has(record.userId)) continue;
    entry.seen.add(record.userId);
    entry.group.users.push({ user: record.user, reactedAt: record.reactedAt });
    entry.group.count++;
  }
  return [...groups.values()].map(({ group }) => group);
}
