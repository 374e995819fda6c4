import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../config/env.schema';
import { isEncrypted, SecretCipher, SecretDecryptionError } from './secret-cipher';

/** Runs one SQL statement (a QueryRunner's, an EntityManager's or a DataSource's `query`). */
export type Query = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/**
 * Every column that holds a secret encrypted at rest (the columns the entities' transformers name).
 * Other stored secrets are hashes (`api_tokens.token_hash`, `integration_tokens.token_hash`).
 */
export const ENCRYPTED_COLUMNS = [
  { table: 'integrations', column: 'secrets', id: 'id', json: true },
  { table: 'integrations', column: 'signing_secret', id: 'id', json: false },
  { table: 'server_secrets', column: 'value', id: 'name', json: false },
  { table: 'site_publishing_auth', column: 'private_key', id: 'site_id', json: false },
] as const;

type Column = (typeof ENCRYPTED_COLUMNS)[number];
const context = (c: Column) => `${c.table}.${c.column}`;

/** Name of the row in `server_secrets` that tells at start whether the key opens the database's secrets. */
export const KEY_CHECK = 'encryption-key-check';

/** The stored form of each row of `column` (a jsonb column holds its ciphertext as a JSON string). */
async function storedRows(query: Query, c: Column): Promise<{ id: string; stored: unknown }[]> {
  // A table created by a later migration is absent when an earlier one (the encryption migration) runs.
  const [exists] = (await query(`SELECT to_regclass($1) IS NOT NULL AS present`, [c.table])) as { present: boolean }[];
  if (!exists?.present) return [];
  return (await query(`SELECT ${c.id} AS id, ${c.column} AS stored FROM ${c.table} ORDER BY ${c.id}`)) as { id: string; stored: unknown }[];
}

async function write(query: Query, c: Column, id: string, value: string, plaintextJson = false): Promise<void> {
  const expression = c.json ? (plaintextJson ? '$2::jsonb' : 'to_jsonb($2::text)') : '$2';
  await query(`UPDATE ${c.table} SET ${c.column} = ${expression} WHERE ${c.id} = $1`, [id, value]);
}

/** Encrypts the rows still in plaintext (the migration's `up`); returns how many per column. */
export async function encryptPlaintextRows(query: Query, cipher: () => SecretCipher): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const c of ENCRYPTED_COLUMNS) {
    counts[context(c)] = 0;
    for (const row of await storedRows(query, c)) {
      if (typeof row.stored === 'string' && isEncrypted(row.stored)) continue;
      const plaintext = c.json ? JSON.stringify(row.stored) : String(row.stored);
      await write(query, c, row.id, cipher().encrypt(plaintext, context(c)));
      counts[context(c)]++;
    }
  }
  return counts;
}

/** Decrypts every encrypted row back to plaintext (the migration's `down`). */
export async function decryptRows(query: Query, cipher: () => SecretCipher): Promise<void> {
  await query(`DELETE FROM server_secrets WHERE name = $1`, [KEY_CHECK]);
  for (const c of ENCRYPTED_COLUMNS) {
    for (const row of await storedRows(query, c)) {
      if (typeof row.stored !== 'string' || !isEncrypted(row.stored)) continue;
      await write(query, c, row.id, cipher().decrypt(row.stored, context(c)), true);
    }
  }
}

/**
 * Re-encrypts every row not yet under the current key (opened with the current or a previous key);
 * returns how many rows changed per column. Rows already current are left alone, so a rotation that
 * stopped half-way is finished by running it again.
 */
export async function rotateRows(query: Query, cipher: SecretCipher): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const c of ENCRYPTED_COLUMNS) {
    counts[context(c)] = 0;
    for (const row of await storedRows(query, c)) {
      const stored = row.stored;
      if (typeof stored === 'string' && isEncrypted(stored) && cipher.isCurrent(stored)) continue;
      const plaintext =
        typeof stored === 'string' && isEncrypted(stored) ? cipher.decrypt(stored, context(c)) : c.json ? JSON.stringify(stored) : String(stored);
      await write(query, c, row.id, cipher.encrypt(plaintext, context(c)));
      counts[context(c)]++;
    }
  }
  return counts;
}

/**
 * At start: the key must open the database's secrets. A row of `server_secrets` encrypted with the key
 * the first time tells; a key that does not open it stops the start with the key ids involved (never
 * a key). Written when absent (a new database, or one whose secrets were all written before).
 */
export async function checkEncryptionKey(query: Query, cipher: SecretCipher): Promise<void> {
  // A database whose migrations have not run holds no secret yet: the start fails on what is missing instead.
  const [{ present }] = (await query(`SELECT to_regclass('server_secrets') IS NOT NULL AS present`, [])) as { present: boolean }[];
  if (!present) return;
  const rows = (await query(`SELECT value FROM server_secrets WHERE name = $1`, [KEY_CHECK])) as { value: string }[];
  if (rows.length === 0) {
    await query(`INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
      KEY_CHECK,
      cipher.encrypt(randomBytes(16).toString('hex'), 'server_secrets.value'),
    ]);
    return;
  }
  try {
    cipher.decrypt(rows[0].value, 'server_secrets.value');
  } catch (error) {
    if (!(error instanceof SecretDecryptionError)) throw error;
    throw new ConfigError(
      `Cannot start: the encryption key does not open the secrets in the database (${error.message}). Set ENCRYPTION_KEY to the key they were encrypted with (or add it to ENCRYPTION_PREVIOUS_KEYS and run secrets:rotate).`,
    );
  }
}
