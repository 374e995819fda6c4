import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/app-config';
import { ServerSecret } from '../../members/server-secret.entity';
import { siteTokenKey } from './site-token';

/** Name of the generated secret in `server_secrets` (encrypted at rest), used when SIGNING_SECRET is unset. */
export const SITE_TOKEN_SECRET = 'site-api-token-signing-key';

/**
 * The key that signs site API tokens: derived from SIGNING_SECRET when set, else from a secret
 * generated once and shared by every replica through the database. Read once per process.
 */
@Injectable()
export class SiteTokenKeys {
  private key?: Promise<Uint8Array>;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  get(): Promise<Uint8Array> {
    this.key ??= (async () => siteTokenKey(this.config.signingSecret ?? (await this.stored())))().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  private async stored(): Promise<string> {
    const manager = this.dataSource.manager;
    await manager
      .createQueryBuilder()
      .insert()
      .into(ServerSecret)
      .values({ name: SITE_TOKEN_SECRET, value: randomBytes(32).toString('base64url') })
      .orIgnore()
      .execute();
    return (await manager.findOneByOrFail(ServerSecret, { name: SITE_TOKEN_SECRET })).value;
  }
}
