import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { User } from './user.entity';
import type { EmailVisibility } from './user.policy';
import { UsersRepository } from './users.repository';
import { userError } from './user.errors';

@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  findByEmail(email: string, manager?: EntityManager): Promise<User | null> {
    return this.users.findByEmail(email, manager);
  }

  /** The user with this e-mail, created (named after the e-mail's local part unless `name` is given) if new. */
  async findOrCreate(email: string, name: string | undefined, manager?: EntityManager): Promise<{ user: User; created: boolean }> {
    const existing = await this.users.findByEmail(email, manager);
    if (existing) return { user: existing, created: false };
    const user = await this.users.insert({ id: newId(), email, displayName: name ?? email.split('@')[0], photoUrl: null }, manager);
    return { user, created: true };
  }

  async getVisible(viewer: User, userId: string): Promise<User> {
    const user = await this.users.findVisibleTo(viewer.id, userId);
    if (!user) throw userError('user.not_found', `User ${userId} not found`);
    return user;
  }

  /**
   * What a site API token (a reader of a published site) may see of a user: someone of the site's
   * organization (a member or a guest: whoever can have edited what the site shows, whose name and photo
   * the renderer shows as "last edited by"); anyone else is unknown (404).
   */
  async getForSiteReader(organizationId: string, userId: string): Promise<User> {
    const user = await this.users.findMemberOf(organizationId, userId);
    if (!user) throw userError('user.not_found', `User ${userId} not found`);
    return user;
  }

  /** The users among `userIds` whose e-mail `viewerId` may see (user.policy.ts), in one query. */
  emailVisibility(viewerId: string, userIds: string[]): Promise<EmailVisibility> {
    return this.users.emailVisibleTo(viewerId, userIds);
  }
}
