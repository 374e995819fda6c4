import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The statements of script tokens (`integration_tokens`): stored by hash, short-lived. */
@Injectable()
export class IntegrationTokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores the tokens' hashes in one statement. The commit does not wait for the WAL flush
   * (`synchronous_commit off`): a token lost in a crash only fails the call that held it.
   */
  async insert(hashes: string[], integrationId: string, installationId: string | null, expiresAt: Date): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.query(`SET LOCAL synchronous_commit TO OFF`);
      await em.query(`INSERT INTO integration_tokens (token_hash, integration_id, installation_id, expires_at) SELECT unnest($1::text[]), $2, $3, $4`, [
        hashes,
        integrationId,
        installationId,
        expiresAt,
      ]);
    });
  }

  /** Removes expired tokens (cheap with the expiry index). */
  async purgeExpired(): Promise<void> {
    await this.dataSource.query(`DELETE FROM integration_tokens WHERE expires_at < now()`);
  }
}
