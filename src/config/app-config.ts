import { resolve } from 'node:path';
import { EnvironmentVariables, LogLevel, validateEnvironment } from './env.schema';

/** Typed, validated configuration; the one object the rest of the code reads settings from. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl?: string;
  readonly databasePoolSize: number;
  readonly dataDir: string;
  /** Base of every `urls.location` (the API as clients reach it), without a trailing slash. */
  readonly publicUrl: string;
  /** Base of every `urls.app` (the web application), without a trailing slash. */
  readonly appUrl: string;
  readonly logLevel: LogLevel;
  readonly migrationsRun: boolean;
  readonly bodyLimit: string;
  readonly shutdownTimeoutMs: number;
  /** Days a deleted space stays restorable before the purge removes it (SPACE_RETENTION_DAYS). */
  readonly spaceRetentionDays: number;
  readonly bootstrap?: { orgTitle: string; email: string; name?: string; token?: string };
  /** SIGNING_SECRET; when unset, signing uses a secret generated once and stored in the database. */
  readonly signingSecret?: string;
  /** Outbound HTTP: whether private targets are allowed, and the per-request time limit. */
  readonly outbound: { allowPrivate: boolean; timeoutMs: number };
  /** Bounds of one website import. */
  readonly contentImport: { maxPages: number; maxDepth: number; maxBytes: number; timeoutMs: number; concurrency: number };
  /** Shape limits of a JSON request body, checked by the input gate before anything validates it. */
  readonly input: { maxKeys: number; maxArrayLength: number; maxDepth: number };

  constructor(env: EnvironmentVariables) {
    this.port = env.PORT;
    this.host = env.HOST;
    this.databaseUrl = env.DATABASE_URL;
    this.databasePoolSize = env.DATABASE_POOL_SIZE;
    this.dataDir = resolve(env.DATA_DIR);
    this.publicUrl = trimSlash(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`);
    this.appUrl = trimSlash(env.APP_URL ?? this.publicUrl);
    this.logLevel = env.LOG_LEVEL;
    this.migrationsRun = env.MIGRATIONS_RUN;
    this.bodyLimit = env.BODY_LIMIT;
    this.shutdownTimeoutMs = env.SHUTDOWN_TIMEOUT_MS;
    this.spaceRetentionDays = env.SPACE_RETENTION_DAYS;
    this.signingSecret = env.SIGNING_SECRET;
    this.outbound = { allowPrivate: env.OUTBOUND_ALLOW_PRIVATE, timeoutMs: env.OUTBOUND_TIMEOUT_MS };
    this.contentImport = {
      maxPages: env.IMPORT_MAX_PAGES,
      maxDepth: env.IMPORT_MAX_DEPTH,
      maxBytes: env.IMPORT_MAX_BYTES,
      timeoutMs: env.IMPORT_TIMEOUT_MS,
      concurrency: env.IMPORT_CONCURRENCY,
    };
    this.input = { maxKeys: env.INPUT_MAX_KEYS, maxArrayLength: env.INPUT_MAX_ARRAY_LENGTH, maxDepth: env.INPUT_MAX_DEPTH };
    if (env.BOOTSTRAP_ORG_TITLE && env.BOOTSTRAP_ADMIN_EMAIL) {
      this.bootstrap = {
        orgTitle: env.BOOTSTRAP_ORG_TITLE,
        email: env.BOOTSTRAP_ADMIN_EMAIL,
        name: env.BOOTSTRAP_ADMIN_NAME,
        token: env.BOOTSTRAP_ADMIN_TOKEN,
      };
    }
  }

  /** Absolute API URL of a path such as `/v1/orgs/abc`. */
  apiUrl(path: string): string {
    return `${this.publicUrl}${path}`;
  }

  /** Absolute application URL of a path such as `/o/abc`. */
  appLink(path: string): string {
    return `${this.appUrl}${path}`;
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return new AppConfig(validateEnvironment(env));
}
