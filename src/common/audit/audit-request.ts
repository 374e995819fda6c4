import type { Request } from 'express';
import { clientAddress } from '../http/client-address';
import type { AuditActor, AuditScope, AuditSource } from './audit.context';
import type { AuditedRoute } from './audit-catalogue';

/** A request's principals beside its user (script and site tokens), as their authenticators leave them. */
interface Principals {
  scriptPrincipal?: { installationId: string; integrationName: string };
  sitePrincipal?: { siteId: string };
}

function callerOf(request: Request & Principals): { actor: AuditActor; source: AuditSource } {
  if (request.scriptPrincipal) {
    const script = request.scriptPrincipal;
    return { actor: { type: 'installation', id: script.installationId, label: script.integrationName }, source: 'integration' };
  }
  if (request.sitePrincipal) return { actor: { type: 'system', id: `site:${request.sitePrincipal.siteId}`, label: 'Site API token' }, source: 'api' };
  const user = request.user;
  return user
    ? { actor: { type: 'user', id: user.id, label: user.displayName }, source: 'api' }
    : { actor: { type: 'system', id: 'anonymous' }, source: 'api' };
}

/** A writing request's audit scope: who, from where, which route; what the commit hook learns comes later. */
export function requestAuditScope(request: Request, route: AuditedRoute, operationId: string): AuditScope {
  const userAgent = request.headers['user-agent'];
  return {
    request,
    route,
    operationId,
    ...callerOf(request),
    correlationId: String(request.id),
    ip: clientAddress(request) ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent : null,
  };
}
