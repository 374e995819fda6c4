import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValueTransformer } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { ConfigError } from '../../config/env.schema';

/**
 * Secrets at rest (integration secrets, signing secrets, the visitor-claims key): AES-256-GCM from
 * `node:crypto`, a fresh 96-bit nonce per value, the column's name as additional data (a value copied
 * into another column does not open). A stored value reads `enc:v1:<key id>:<base64url(nonce | tag |
 * ciphertext)>`; the key id (8 hex digits of a SHA-256 of the key) says which key opens it, so a
 * rotation (`secrets:rotate`) re-encrypts under the current key while the previous ones still open what
 * it has not reached yet.
 *
 * The key: `ENCRYPTION_KEY` (32 bytes, base64 or 64 hex digits), else `<DATA_DIR>/encryption.key`,
 * generated on first start (mode 0600). Previous keys: `ENCRYPTION_PREVIOUS_KEYS` (comma-separated).
 * Values are decrypted at the entity boundary (TypeORM column transformers), so callers see plaintext.
 */
export const KEY_FILE = 'encryption.key';
const PREFIX = 'enc:v1:';

export class SecretCipher {
  readonly keyId: string;
  private readonly keys: Map<string, Buffer>;

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.keyId = keyIdOf(current);
    this.keys = new Map([[this.keyId, current]]);
    for (const key of previous) if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), key);
  }

  encrypt(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.keyId)!, nonce);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.keyId}:${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The plaintext of a stored value; throws `SecretDecryptionError` (never with the value) when no key opens it. */
  decrypt(stored: string, context: string): string {
    if (!isEncrypted(stored)) throw new SecretDecryptionError(`${context}: the stored value is not encrypted`);
    const [keyId, data] = stored.slice(PREFIX.length).split(':');
    const key = this.keys.get(keyId);
    if (!key) {
      throw new SecretDecryptionError(
        `${context}: encrypted with key ${keyId}, which this server does not have (ENCRYPTION_KEY is ${this.keyId}${this.keys.size > 1 ? `; previous: ${[...this.keys.keys()].slice(1).join(', ')}` : ''})`,
      );
    }
    const raw = Buffer.from(data ?? '', 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(`${context}: the value under key ${keyId} does not authenticate (altered, or moved from another column)`);
    }
  }

  /** Whether `stored` is already under the current key (a rotation skips it). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${PREFIX}${this.keyId}:`);
  }
}

export class SecretDecryptionError extends Error {}

export function isEncrypted(value: string): boolean {
  return value.startsWith(PREFIX);
}

function keyIdOf(key: Buffer): string {
  return hash('sha256', Buffer.concat([Buffer.from('quire-encryption-key:'), key]), 'hex').slice(0, 8);
}

/** A key as written in the environment or the key file: 32 bytes in base64/base64url or hex. */
export function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || !/^[\w+/=-]+$/.test(trimmed)) {
    throw new ConfigError(`Invalid ${source}: must be 32 random bytes in base64 or 64 hex digits (e.g. openssl rand -base64 32)`);
  }
  return key;
}

export function generateKeyText(): string {
  return randomBytes(32).toString('base64');
}

let active: SecretCipher | undefined;

/**
 * Loads the keys `config` names (generating the key file when neither ENCRYPTION_KEY nor the file
 * exists) and makes them the process's cipher. Called at start by the server and the CLI, before any
 * secret is read or written.
 */
export function configureSecretCipher(config: Pick<AppConfig, 'dataDir' | 'encryption'>): SecretCipher {
  let current: Buffer;
  if (config.encryption.key) {
    current = parseKey(config.encryption.key, 'ENCRYPTION_KEY');
  } else {
    const file = join(config.dataDir, KEY_FILE);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`Cannot read the encryption key file ${file}: ${(error as Error).message}`);
      mkdirSync(config.dataDir, { recursive: true });
      try {
        writeFileSync(file, `${generateKeyText()}\n`, { mode: 0o600, flag: 'wx' });
      } catch (raced) {
        // Another process (a replica, a CLI run) wrote it first: use theirs.
        if ((raced as NodeJS.ErrnoException).code !== 'EEXIST')
          throw new ConfigError(`Cannot write the encryption key file ${file}: ${(raced as Error).message}`);
      }
      text = readFileSync(file, 'utf8');
    }
    current = parseKey(text, `encryption key file ${file}`);
  }
  const previous = config.encryption.previousKeys.map((text, i) => parseKey(text, `ENCRYPTION_PREVIOUS_KEYS (entry ${i + 1})`));
  active = new SecretCipher(current, previous);
  return active;
}

/** The process's cipher; throws when no key was loaded (a data source used outside the server and the CLI). */
export function secretCipher(): SecretCipher {
  if (!active) throw new Error('The encryption key is not loaded (configureSecretCipher was not called)');
  return active;
}

/** An encrypted `text` column: plaintext in the entity, ciphertext in the row. */
export function encryptedText(context: string): ValueTransformer {
  return {
    to: (value: string | null | undefined) => (value === null || value === undefined ? value : secretCipher().encrypt(value, context)),
    from: (value: string | null) => (value === null ? value : secretCipher().decrypt(value, context)),
  };
}

/** An encrypted `jsonb` column: the entity's object, stored as one JSON string of ciphertext. */
export function encryptedJson(context: string): ValueTransformer {
  return {
    to: (value: unknown) => (value === null || value === undefined ? value : secretCipher().encrypt(JSON.stringify(value), context)),
    from: (value: unknown) => (typeof value === 'string' ? (JSON.parse(secretCipher().decrypt(value, context)) as unknown) : value),
  };
}
