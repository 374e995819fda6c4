import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
/**
 * Who a script token speaks for: the integration, its installation (its organization, and the
 * spaces and sites it may reach), and the manifest's scopes. The request's `user` is the admin who
 * installed it; the script-scope guard narrows what that user could do to this.
 */
export interface ScriptPrincipal {
  integrationId: string;
  integrationName: string;
  installationId: string;
  organizationId: string;
  scopes: string[];
  spaceSelection: 'all' | 'selected';
  siteSelection: 'all' | 'selected';
}

/** The script token's principal on this request, if the caller is a script (`undefined` for user tokens). */
export const CurrentScript = createParamDecorator(
  (_: unknown, context: ExecutionContext): ScriptPrincipal | undefined => context.switchToHttp().getRequest<Request>().scriptPrincipal,
);
