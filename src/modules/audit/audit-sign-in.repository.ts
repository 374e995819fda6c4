import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface TokenOwner {
  organizationId: string;
  installationId: string;
  integrationName: string;
}

/** Whose a refused token is, when it is a known row (decision 0064). */
@Injectable()
export class AuditSignInRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The installation (and its organization) of a script token the authenticator refused: a known row
   * that expired, or whose installation lost its installer. Unknown hashes (guesses, revoked user
   * tokens, whose rows are deleted) name nothing.
   */
  async scriptTokenOwner(tokenHash: string): Promise<TokenOwner | null> {
    const rows: TokenOwner[] = await this.dataSource.query(
      `SELECT n.organization_id AS "organizationId", n.id AS "installationId", i.name AS "integrationName"
         FROM integration_tokens t
         JOIN integration_installations n ON n.id = t.installation_id
         JOIN integrations i ON i.id = t.integration_id
        WHERE t.token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }
}
