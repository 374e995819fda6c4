import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { User } from '../users/user.entity';
import { queryPrepared } from '../../database/prepared-query';
import { Membership } from '../organizations/membership.entity';
import { ApiToken } from './api-token.entity';

interface OwnerRow {
  token_id: string;
  last_used_at: Date | null;
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
  created_at: Date;
  updated_at: Date;
}

interface MembershipColumns {
  m_organization_id: string | null;
  m_role: Membership['role'];
  m_joined_at: Date;
  m_last_seen_at: Date | null;
  m_sso: boolean;
  m_disabled: boolean;
}

export interface TokenOwner {
  tokenId: string;
  lastUsedAt: Date | null;
  user: User;
  /** The user's membership in the organization asked for, when there is one. */
  membership?: Membership;
}

@Injectable()
export class TokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(token: Pick<ApiToken, 'id' | 'userId' | 'tokenHash' | 'label'>, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(ApiToken, token);
  }

  async existsByHash(tokenHash: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return manager.existsBy(ApiToken, { tokenHash });
  }

  /**
   * The token's user in one round trip, as a prepared statement: this runs on every authenticated request.
   * With `organizationId` (a route under `/v1/orgs/{organizationId}`), the user's membership there comes
   * with it, so the organization guard needs no second round trip.
   */
  async findOwnerByHash(tokenHash: string, organizationId?: string): Promise<TokenOwner | undefined> {
    const [row] = organizationId
      ? await queryPrepared<OwnerRow & MembershipColumns>(
          this.dataSource,
          'quire_token_owner_member',
          `SELECT t.id AS token_id, t.last_used_at, u.id, u.display_name, u.email, u.photo_url, u.created_at, u.updated_at,
                  m.organization_id AS m_organization_id, m.role AS m_role, m.joined_at AS m_joined_at,
                  m.last_seen_at AS m_last_seen_at, m.sso AS m_sso, m.disabled AS m_disabled
             FROM api_tokens t JOIN users u ON u.id = t.user_id
             LEFT JOIN memberships m ON m.user_id = u.id AND m.organization_id = $2
            WHERE t.token_hash = $1`,
          [tokenHash, organizationId],
        )
      : await queryPrepared<OwnerRow>(
          this.dataSource,
          'quire_token_owner',
          `SELECT t.id AS token_id, t.last_used_at, u.id, u.display_name, u.email, u.photo_url, u.created_at, u.updated_at
             FROM api_tokens t JOIN users u ON u.id = t.user_id
            WHERE t.token_hash = $1`,
          [tokenHash],
        );
    if (!row) return undefined;
    const user = Object.assign(new User(), {
      id: row.id,
      displayName: row.display_name,
      email: row.email,
      photoUrl: row.photo_url,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
    const member = row as Partial<MembershipColumns>;
    const membership = member.m_organization_id
      ? Object.assign(new Membership(), {
          organizationId: member.m_organization_id,
          userId: row.id,
          role: member.m_role ?? null,
          joinedAt: member.m_joined_at,
          lastSeenAt: member.m_last_seen_at ?? null,
          sso: member.m_sso ?? false,
          disabled: member.m_disabled ?? false,
        })
      : undefined;
    return { tokenId: row.token_id, lastUsedAt: row.last_used_at, user, membership };
  }

  /** Deletes the token with this hash, or every token of this user: the tokens removed. */
  async remove(which: { tokenHash: string } | { userId: string }, manager: EntityManager): Promise<Pick<ApiToken, 'id' | 'userId' | 'label'>[]> {
    const [column, value] = 'tokenHash' in which ? ['token_hash', which.tokenHash] : ['user_id', which.userId];
    const [rows] = (await manager.query(`DELETE FROM api_tokens WHERE ${column} = $1 RETURNING id, user_id, label`, [value])) as [
      { id: string; user_id: string; label: string | null }[],
      number,
    ];
    return rows.map((row) => ({ id: row.id, userId: row.user_id, label: row.label }));
  }

  async touch(tokenId: string, at: Date): Promise<void> {
    await this.dataSource.query(`UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, [tokenId, at]);
  }
}
