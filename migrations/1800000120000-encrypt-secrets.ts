import { MigrationInterface, QueryRunner } from 'typeorm';
import { secretCipher } from '../src/common/crypto/secret-cipher';
import { decryptRows, encryptPlaintextRows } from '../src/common/crypto/secret-columns';

/**
 * Secrets at rest (issue 31): integration secrets and signing secrets (`integrations.secrets`,
 * `integrations.signing_secret`) and the server's generated keys (`server_secrets.value`, the
 * visitor-claims key) are encrypted with AES-256-GCM under the server's key (ENCRYPTION_KEY, or the key
 * file under DATA_DIR). No column changes type: `secrets` (jsonb) holds its ciphertext as a JSON string.
 * `down` decrypts them back. The key is asked for only when there are rows to change.
 */
export class EncryptSecrets1800000120000 implements MigrationInterface {
  name = 'EncryptSecrets1800000120000';

  async up(db: QueryRunner): Promise<void> {
    await encryptPlaintextRows((sql, parameters) => db.query(sql, parameters), secretCipher);
  }

  async down(db: QueryRunner): Promise<void> {
    await decryptRows((sql, parameters) => db.query(sql, parameters), secretCipher);
  }
}
