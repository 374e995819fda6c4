import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configureSecretCipher, KEY_FILE, parseKey, SecretCipher, SecretDecryptionError } from '../../src/common/crypto/secret-cipher';

describe('SecretCipher (AES-256-GCM at rest)', () => {
  const key1 = randomBytes(32);
  const key2 = randomBytes(32);
  const secret = 'sk_live_do_not_leak';

  it('round-trips, with a fresh nonce per value and the key id in the stored form', () => {
    const cipher = new SecretCipher(key1);
    const a = cipher.encrypt(secret, 'integrations.signing_secret');
    const b = cipher.encrypt(secret, 'integrations.signing_secret');
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^enc:v1:${cipher.keyId}:[A-Za-z0-9_-]+$`));
    expect(a).not.toContain(secret);
    expect(cipher.decrypt(a, 'integrations.signing_secret')).toBe(secret);
    expect(cipher.isCurrent(a)).toBe(true);
  });

  it('refuses a value moved to another column, altered, or under a key it does not have; messages carry key ids, never keys', () => {
    const cipher = new SecretCipher(key1);
    const stored = cipher.encrypt(secret, 'integrations.secrets');
    expect(() => cipher.decrypt(stored, 'server_secrets.value')).toThrow(SecretDecryptionError);
    const body = stored.slice(stored.lastIndexOf(':') + 1);
    const flipped = Buffer.from(body, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    expect(() => cipher.decrypt(stored.replace(body, flipped.toString('base64url')), 'integrations.secrets')).toThrow(/does not authenticate/);
    const other = new SecretCipher(key2);
    let message = '';
    try {
      other.decrypt(stored, 'integrations.secrets');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`encrypted with key ${cipher.keyId}, which this server does not have (ENCRYPTION_KEY is ${other.keyId})`);
    for (const key of [key1, key2]) {
      expect(message).not.toContain(key.toString('base64'));
      expect(message).not.toContain(key.toString('hex'));
    }
    expect(() => cipher.decrypt('plaintext', 'integrations.secrets')).toThrow(/not encrypted/);
  });

  it('opens values under a previous key, and encrypts under the current one (a rotation)', () => {
    const old = new SecretCipher(key1).encrypt(secret, 'server_secrets.value');
    const rotating = new SecretCipher(key2, [key1]);
    expect(rotating.isCurrent(old)).toBe(false);
    expect(rotating.decrypt(old, 'server_secrets.value')).toBe(secret);
    const again = rotating.encrypt(secret, 'server_secrets.value');
    expect(rotating.isCurrent(again)).toBe(true);
    expect(new SecretCipher(key2).decrypt(again, 'server_secrets.value')).toBe(secret);
  });

  it('parses keys as base64 or hex of 32 bytes only', () => {
    expect(parseKey(key1.toString('base64'), 'ENCRYPTION_KEY').equals(key1)).toBe(true);
    expect(parseKey(key1.toString('hex'), 'ENCRYPTION_KEY').equals(key1)).toBe(true);
    expect(parseKey(key1.toString('base64url'), 'ENCRYPTION_KEY').equals(key1)).toBe(true);
    expect(() => parseKey(randomBytes(16).toString('base64'), 'ENCRYPTION_KEY')).toThrow(/32 random bytes/);
    expect(() => parseKey('not a key at all!', 'ENCRYPTION_KEY')).toThrow(/ENCRYPTION_KEY/);
  });

  it('without ENCRYPTION_KEY, generates the key file once (mode 0600) and reads it afterwards', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'quire-key-')), 'data');
    try {
      const first = configureSecretCipher({ dataDir, encryption: { previousKeys: [] } });
      const file = join(dataDir, KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const text = readFileSync(file, 'utf8');
      const second = configureSecretCipher({ dataDir, encryption: { previousKeys: [] } });
      expect(second.keyId).toBe(first.keyId);
      expect(readFileSync(file, 'utf8')).toBe(text);
      // ENCRYPTION_KEY wins over the file.
      expect(configureSecretCipher({ dataDir, encryption: { key: key1.toString('base64'), previousKeys: [] } }).keyId).toBe(new SecretCipher(key1).keyId);
    } finally {
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
