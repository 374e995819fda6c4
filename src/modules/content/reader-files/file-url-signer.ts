import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/app-config';
import { ServerSecretsRepository } from '../../members/server-secrets.repository';

/** Name of the generated key in `server_secrets` (encrypted at rest like every server secret). */
export const READER_FILES_SECRET = 'reader-file-url-signing-key';

/** A signed URL stays valid this many whole UTC days after the day it was made on. */
export const READER_FILE_URL_DAYS = 7;

const DAY_SECONDS = 86_400;
/** `expires` is whole seconds; a signature is HMAC-SHA256 in base64url (43 characters). */
export const SIGNATURE_PATTERN = /^[\w-]{43}$/;

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

/**
 * Signs and checks the URLs of a published revision's files that a reader's browser loads without
 * an API token (`GET /v1/reader/files/{revisionId}/{fileId}?expires=…&signature=…`). A signature
 * pins revision, file and expiry; the expiry is the end of a UTC day, so the URL of a file is the
 * same all day long (the renderer's page cache and browsers' caches keep hitting) and stays valid
 * between `READER_FILE_URL_DAYS` and one more day.
 */
@Injectable()
export class FileUrlSigner {
  private key?: Promise<Buffer>;
  private readonly secrets: ServerSecretsRepository;

  constructor(
    private readonly config: AppConfig,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.secrets = new ServerSecretsRepository(dataSource);
  }

  /** The signed URL of each file of `revisionId`, as a function (the key is read once, before). */
  async signerFor(revisionId: string, nowMs = Date.now()): Promise<(fileId: string) => string> {
    const key = await this.signingKey();
    const expires = expiryFor(nowMs);
    return (fileId) =>
      this.config.apiUrl(
        `/v1/reader/files/${encodeURIComponent(revisionId)}/${encodeURIComponent(fileId)}?expires=${expires}&signature=${mac(key, revisionId, fileId, expires)}`,
      );
  }

  /** Whether the signature is this server's for this revision, file and expiry, still unexpired. Reads no content. */
  async check(revisionId: string, fileId: string, expires: number, signature: string, nowMs = Date.now()): Promise<SignatureCheck> {
    if (!SIGNATURE_PATTERN.test(signature)) return 'invalid';
    const expected = Buffer.from(mac(await this.signingKey(), revisionId, fileId, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return expires * 1000 <= nowMs ? 'expired' : 'valid';
  }

  /** Generated once, kept in `server_secrets` so every replica signs alike; read once per process. */
  private signingKey(): Promise<Buffer> {
    this.key ??= this.secrets
      .getOrCreate(READER_FILES_SECRET, () => randomBytes(32).toString('base64url'))
      .then((secret) => Buffer.from(secret, 'base64url'))
      .catch((error: unknown) => {
        // A failed read (database down) must not be cached: the next request tries again.
        this.key = undefined;
        throw error;
      });
    return this.key;
  }
}

/** End of the UTC day `READER_FILE_URL_DAYS` after today, in seconds. */
export function expiryFor(nowMs: number): number {
  return (Math.floor(nowMs / 1000 / DAY_SECONDS) + 1 + READER_FILE_URL_DAYS) * DAY_SECONDS;
}

function mac(key: Buffer, revisionId: string, fileId: string, expires: number): string {
  // Unit separators keep the fields apart (ids never hold control characters).
  return createHmac('sha256', key).update(`reader-file\u001f${revisionId}\u001f${fileId}\u001f${expires}`).digest('base64url');
}
