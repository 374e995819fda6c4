import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { User } from '../users/user.entity';
import { queryPrepared } from '../../database/prepared-query';
import { ApiToken } from './api-token.entity';

export interface TokenOwner {
  tokenId: string;
  lastUsedAt: Date | null;
  user: User;
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

  /** The token's user in one round trip, as a prepared statement: this runs on every authenticated request. */
  async findOwnerByHash(tokenHash: string): Promise<TokenOwner | undefined> {
    const [row] = await queryPrepared<{
      token_id: string;
      last_used_at: Date | null;
      id: string;
      display_name: string;
      email: string;
      photo_url: string | null;
      created_at: Date;
      updated_at: Date;
    }>(
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
    return { tokenId: row.token_id, lastUsedAt: row.last_used_at, user };
  }

  async touch(tokenId: string, at: Date): Promise<void> {
    await this.dataSource.query(`UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, [tokenId, at]);
  }
}
