import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { queryPrepared } from '../../database/prepared-query';
import { User } from './user.entity';

/** Of `$2` (user ids), the viewer `$1` and the users sharing an organization where the viewer is an enabled, non-guest member. */
const EMAIL_VISIBLE_TO_SQL = `SELECT t.id FROM unnest($2::text[]) AS t(id)
  WHERE t.id = $1 OR EXISTS (
    SELECT 1 FROM memberships mine JOIN memberships theirs ON theirs.organization_id = mine.organization_id
     WHERE mine.user_id = $1 AND mine.role IS NOT NULL AND NOT mine.disabled AND theirs.user_id = t.id)`;

@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.findOneBy(User, { id });
  }

  findByEmail(email: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.createQueryBuilder(User, 'u').where('lower(u.email) = lower(:email)', { email }).getOne();
  }

  async insert(user: Pick<User, 'id' | 'displayName' | 'email' | 'photoUrl'>, manager: EntityManager = this.dataSource.manager): Promise<User> {
    await manager.insert(User, user);
    return (await this.findById(user.id, manager)) as User;
  }

  /** A user visible to `viewerId`: the same user, or one sharing an organization with them. */
  findVisibleTo(viewerId: string, userId: string): Promise<User | null> {
    return this.dataSource.manager
      .createQueryBuilder(User, 'u')
      .where('u.id = :userId', { userId })
      .andWhere(
        `(u.id = :viewerId OR EXISTS (
           SELECT 1 FROM memberships mine JOIN memberships theirs ON theirs.organization_id = mine.organization_id
            WHERE mine.user_id = :viewerId AND theirs.user_id = u.id))`,
        { viewerId },
      )
      .getOne();
  }

  /** `userId` when they belong to `organizationId` (any membership, a guest's too), else null. */
  findMemberOf(organizationId: string, userId: string): Promise<User | null> {
    return this.dataSource.manager
      .createQueryBuilder(User, 'u')
      .where('u.id = :userId', { userId })
      .andWhere('EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.organization_id = :organizationId)', { organizationId })
      .getOne();
  }

  /**
   * Of `userIds`, those whose e-mail `viewerId` may see (the rule of user.policy.ts): the viewer
   * themselves, and users sharing an organization in which the viewer is an enabled, non-guest member.
   */
  async emailVisibleTo(viewerId: string, userIds: string[]): Promise<Set<string>> {
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return new Set();
    // The viewer sees their own: no statement when they are the only user shown (the comment or change request they just wrote).
    if (ids.length === 1 && ids[0] === viewerId) return new Set(ids);
    // Behind every response that shows users: prepared once per connection (planning it cost up to 2 ms each time).
    const rows = await queryPrepared<{ id: string }>(this.dataSource, 'quire_email_visible_to', EMAIL_VISIBLE_TO_SQL, [viewerId, ids]);
    return new Set(rows.map((row) => row.id));
  }
}
