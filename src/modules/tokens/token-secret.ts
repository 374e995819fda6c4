import { hash, randomBytes } from 'node:crypto';

const PREFIX = 'quire_';

/** A new API token secret: 32 random bytes, recognisable by its prefix in secret scanners. */
export function generateTokenSecret(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** What the database keeps instead of the secret. */
export function hashTokenSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
