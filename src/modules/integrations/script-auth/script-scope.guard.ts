import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { integrationError } from '../integration.errors';
import type { ScriptPrincipal } from './script-principal';
import { scriptScopeDecision } from './script-scope.policy';

/**
 * Global guard, after the bearer guard: a request made with a script token reaches only the
 * installation's organization (404 elsewhere, like any outsider), only the spaces and sites the
 * installation covers (404 for others), and only what the manifest's scopes allow (403 beyond).
 * User tokens pass untouched.
 */
@Injectable()
export class ScriptScopeGuard implements CanActivate {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A user token (every request but a script's) passes at once, without a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const principal = request.scriptPrincipal;
    if (!principal) return true;
    return this.checkScript(request, principal);
  }

  private async checkScript(request: Request, principal: ScriptPrincipal): Promise<boolean> {
    const params = request.params as Record<string, string | undefined>;
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(request.method);
    const notFound = (what: string) => integrationError('integration.not_found', `${what} not found`);

    let family: 'space' | 'site' | 'organization' | 'own-integration' | 'other' = 'other';
    if (params.spaceId) {
      const rows: { organization_id: string; installed: boolean }[] = await this.dataSource.query(
        `SELECT s.organization_id,
                EXISTS (SELECT 1 FROM integration_space_installations x WHERE x.installation_id = $2 AND x.space_id = s.id) AS installed
           FROM spaces s WHERE s.id = $1`,
        [params.spaceId, principal.installationId],
      );
      const space = rows[0];
      if (!space || space.organization_id !== principal.organizationId) throw notFound(`Space ${params.spaceId}`);
      if (principal.spaceSelection !== 'all' && !space.installed) throw notFound(`Space ${params.spaceId}`);
      family = 'space';
    } else if (params.siteId) {
      const rows: { organization_id: string; installed: boolean }[] = await this.dataSource.query(
        `SELECT s.organization_id,
                EXISTS (SELECT 1 FROM integration_site_installations x WHERE x.installation_id = $2 AND x.site_id = s.id) AS installed
           FROM sites s WHERE s.id = $1`,
        [params.siteId, principal.installationId],
      );
      const site = rows[0];
      if (!site || site.organization_id !== principal.organizationId) throw notFound(`Site ${params.siteId}`);
      if (principal.siteSelection !== 'all' && !site.installed) throw notFound(`Site ${params.siteId}`);
      family = 'site';
    } else if (params.collectionId) {
      const rows: { organization_id: string }[] = await this.dataSource.query(`SELECT organization_id FROM collections WHERE id = $1`, [params.collectionId]);
      if (rows[0]?.organization_id !== principal.organizationId) throw notFound(`Collection ${params.collectionId}`);
      family = 'space';
    } else if (params.organizationId) {
      if (params.organizationId !== principal.organizationId) throw notFound(`Organization ${params.organizationId}`);
      family = 'organization';
    } else if (params.integrationName && params.integrationName === principal.integrationName) {
      family = 'own-integration';
    }
    if (scriptScopeDecision(principal, { family, write }) === 'forbidden') {
      throw integrationError('integration.scope_forbidden', `The integration ${principal.integrationName} has no scope for ${request.method} on this resource`);
    }
    return true;
  }
}
