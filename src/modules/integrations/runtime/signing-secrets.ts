import { createHmac } from 'node:crypto';

/**
 * The `signingSecrets` of a script call. `integration` is the integration's own secret; each
 * installation, and each space or site installation, gets a secret of its own derived from it
 * (HMAC-SHA256, purpose-bound), so what one installation signs (a site's visitor JWTs above all)
 * never verifies for another organization's, and nothing needs storing: the integration's secret
 * (encrypted at rest) derives them again.
 */
export function installationSigningSecret(integrationSecret: string, installationId: string): string {
  return derive(integrationSecret, `quire:installation:${installationId}`);
}

export function targetSigningSecret(integrationSecret: string, installationId: string, kind: 'space' | 'site', targetId: string): string {
  return derive(integrationSecret, `quire:${kind}-installation:${installationId}:${targetId}`);
}

function derive(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(purpose).digest('base64url');
}
