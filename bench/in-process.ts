import type { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { createLogger } from '../src/common/logging/logger';
import { AppConfig, loadConfig } from '../src/config/app-config';
import type { Membership } from '../src/modules/organizations/membership.entity';
import type { Organization } from '../src/modules/organizations/organization.entity';
import { OrganizationsService } from '../src/modules/organizations/organizations.service';
import { TokensService } from '../src/modules/tokens/tokens.service';
import type { User } from '../src/modules/users/user.entity';
import { UsersService } from '../src/modules/users/users.service';
import { createTestDatabase } from '../test/support/database';

/** A module benchmark's server: the real app in this process on a fresh database, one user, token and organization. */
export interface BenchApp {
  app: INestApplication;
  base: string;
  user: User;
  organization: Organization;
  membership: Membership;
  config: AppConfig;
  databaseUrl: string;
  /** `authorization` and a JSON `content-type`. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Starts the app on loopback (rate limits off: the measured requests come from one address and one
 * token; logs at `warn`), with `env` over the defaults, and makes the bench's caller.
 */
export async function startBenchApp(env: Record<string, string> = {}, email = 'bench@example.com'): Promise<BenchApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    RATE_LIMIT_PER_ADDRESS: '0',
    RATE_LIMIT_PER_TOKEN: '0',
    ...env,
  });
  const app = await createApp(config, database.url, createLogger('warn'));
  try {
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const { user } = await app.get(UsersService).findOrCreate(email, 'Bench');
    const headers = { authorization: `Bearer ${await app.get(TokensService).issue(user.id)}`, 'content-type': 'application/json' };
    const { organization, membership } = await app.get(OrganizationsService).create(user, { title: 'Bench Org' });
    return {
      app,
      base,
      user,
      organization,
      membership,
      config,
      databaseUrl: database.url,
      headers,
      close: async () => {
        await app.close();
        await database.drop();
      },
    };
  } catch (error) {
    await app.close();
    await database.drop();
    throw error;
  }
}
