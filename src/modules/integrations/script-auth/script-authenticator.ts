import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import type { Authenticator } from '../../../common/auth/authenticator';
import { RateLimiter } from '../../../common/rate-limit/rate-limiter';
import { TokensService } from '../../tokens/tokens.service';
import { User } from '../../users/user.entity';
import { hashScriptToken, SCRIPT_TOKEN_PREFIX } from '../integration-tokens.service';

/**
 * The bearer authenticator: user tokens go to the tokens module unchanged; a script token (prefix
 * `qit_`, short-lived, minted per call) resolves to the admin who installed the integration, with
 * the script's principal (the installation and the scopes it was granted) on the request for the
 * scope guard, which confines it to its installation. A script token whose installation is
 * gone, whose installer left, or that expired is unknown (401).
 */
@Injectable()
export class ScriptTokenAuthenticator implements Authenticator {
  constructor(
    private readonly tokens: TokensService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly limits: RateLimiter,
  ) {}

  async authenticate(secret: string, request?: Request): Promise<User | undefined> {
    const hashed = request?.bearerTokenHash ?? hashScriptToken(secret);
    if (!secret.startsWith(SCRIPT_TOKEN_PREFIX)) return this.tokens.authenticate(secret, hashed, request);
    const rows: {
      integration_id: string;
      name: string;
      scopes: string[];
      installation_id: string;
      organization_id: string;
      installed_by: string;
      space_selection: 'all' | 'selected';
      site_selection: 'all' | 'selected';
    }[] = await this.dataSource.query(
      `SELECT i.id AS integration_id, i.name, n.granted_scopes AS scopes, n.id AS installation_id, n.organization_id, n.installed_by, n.space_selection, n.site_selection
         FROM integration_tokens t
         JOIN integrations i ON i.id = t.integration_id
         JOIN integration_installations n ON n.id = t.installation_id
        WHERE t.token_hash = $1 AND t.expires_at > now() AND n.installed_by IS NOT NULL`,
      [hashed],
    );
    const row = rows[0];
    if (!row) return undefined;
    // A script's calls are counted per installation (its tokens are minted per call), never per address.
    await this.limits.chargeInstallation(row.installation_id, request?.res);
    const user = await this.dataSource.getRepository(User).findOneBy({ id: row.installed_by });
    if (!user) return undefined;
    if (request) {
      request.scriptPrincipal = {
        integrationId: row.integration_id,
        integrationName: row.name,
        installationId: row.installation_id,
        organizationId: row.organization_id,
        scopes: row.scopes,
        spaceSelection: row.space_selection,
        siteSelection: row.site_selection,
      };
    }
    return user;
  }
}
