import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { SCRIPT_ACCESS, type ScriptAccessDeclaration } from '../../../common/access/script-access';
import { routeMetadata } from '../../../common/metadata/route-metadata';
import { integrationError } from '../integration.errors';
import type { ScriptPrincipal } from './script-principal';
import { scriptAccessDecision, scriptBodyTargets, type ScriptTarget } from './script-scope.policy';

/**
 * Global guard, after the bearer guard: a request made with a script token reaches only what its
 * route declares for scripts (`@ScriptScope`, `@ScriptInstallationRoute`; anything else, or no
 * declaration, is 403), only inside its installation: every organization, space, collection or site
 * the request names (path parameters and body fields alike) must be the installation's organization
 * or covered by it (404 otherwise, like any outsider), and a scope route needs one of its scopes
 * among those the installation was granted (403). User tokens pass untouched.
 */
@Injectable()
export class ScriptScopeGuard implements CanActivate {
  private readonly declarationOf: (context: ExecutionContext) => ScriptAccessDeclaration | undefined;

  constructor(
    reflector: Reflector,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.declarationOf = routeMetadata<ScriptAccessDeclaration>(reflector, SCRIPT_ACCESS);
  }

  /** A user token (every request but a script's) passes at once, without a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const principal = request.scriptPrincipal;
    if (!principal) return true;
    return this.checkScript(request, principal, this.declarationOf(context));
  }

  private async checkScript(request: Request, principal: ScriptPrincipal, declaration: ScriptAccessDeclaration | undefined): Promise<boolean> {
    const params = request.params as Record<string, string | undefined>;
    const forbidden = (why: string) =>
      integrationError(
        'integration.scope_forbidden',
        `The integration ${principal.integrationName} cannot call ${request.method} ${request.route?.path ?? ''}: ${why}`,
      );

    // Another integration's routes are beyond any script (403, as before: names are public).
    if (params.integrationName !== undefined && params.integrationName !== principal.integrationName) {
      throw forbidden('it is another integration');
    }
    // What the path names, then what the body names: each inside the installation, or 404.
    const targets: ScriptTarget[] = [];
    if (params.organizationId) targets.push({ kind: 'organization', id: params.organizationId });
    if (params.spaceId) targets.push({ kind: 'space', id: params.spaceId });
    if (params.siteId) targets.push({ kind: 'site', id: params.siteId });
    if (params.collectionId) targets.push({ kind: 'collection', id: params.collectionId });
    if (params.installationId) targets.push({ kind: 'installation', id: params.installationId });
    targets.push(...scriptBodyTargets(request.body));
    for (const target of targets) await this.requireInside(principal, target);

    const decision = scriptAccessDecision(principal, declaration, {
      method: request.method,
      installationRoute: params.installationId !== undefined && params.spaceId === undefined && params.siteId === undefined,
      body: request.body,
      expandsSpaces: request.query.extended === 'true' && /\/spaces\b/.test(request.route?.path ?? ''),
    });
    if (decision !== 'allow') throw forbidden(decision);
    return true;
  }

  /** 404 for anything outside the installation (other organizations, uncovered spaces and sites, other installations). */
  private async requireInside(principal: ScriptPrincipal, target: ScriptTarget): Promise<void> {
    const notFound = () => integrationError('integration.not_found', `${target.kind[0].toUpperCase()}${target.kind.slice(1)} ${target.id} not found`);
    switch (target.kind) {
      case 'organization':
        if (target.id !== principal.organizationId) throw notFound();
        return;
      case 'installation':
        if (target.id !== principal.installationId) throw notFound();
        return;
      case 'collection': {
        const rows: { organization_id: string }[] = await this.dataSource.query(`SELECT organization_id FROM collections WHERE id = $1`, [target.id]);
        if (rows[0]?.organization_id !== principal.organizationId) throw notFound();
        return;
      }
      case 'space':
      case 'site': {
        const table = target.kind === 'space' ? 'spaces' : 'sites';
        const installed = target.kind === 'space' ? 'integration_space_installations' : 'integration_site_installations';
        const rows: { organization_id: string; installed: boolean }[] = await this.dataSource.query(
          `SELECT t.organization_id,
                  EXISTS (SELECT 1 FROM ${installed} x WHERE x.installation_id = $2 AND x.${target.kind}_id = t.id) AS installed
             FROM ${table} t WHERE t.id = $1`,
          [target.id, principal.installationId],
        );
        const row = rows[0];
        const selection = target.kind === 'space' ? principal.spaceSelection : principal.siteSelection;
        if (!row || row.organization_id !== principal.organizationId || (selection !== 'all' && !row.installed)) throw notFound();
        return;
      }
    }
  }
}
