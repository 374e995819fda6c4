import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsInt, IsOptional, IsString, IsUrl, Length, Matches, Max, Min, validateSync } from 'class-validator';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  return value;
};
const urlOptions = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * Every environment variable Quire reads, with its default. Validated once at start:
 * a bad value stops the process with one line naming the variable (see `loadConfig`).
 * `.env.example` documents each of them.
 */
export class EnvironmentVariables {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsOptional()
  @IsString()
  HOST: string = '0.0.0.0';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number = 10;

  /**
   * PostgreSQL for session-level work (migrations, the admin CLI, the published LISTEN connection)
   * when DATABASE_URL goes through a transaction-mode pooler such as PgBouncer; unset: DATABASE_URL.
   * Ignored without DATABASE_URL (the embedded PostgreSQL is direct).
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** Streaming replicas that serve reads which tolerate lag (lists, search, content reads, insights aggregates); comma-separated. */
  @IsOptional()
  @Matches(/^\s*postgres(ql)?:\/\/[^\s,]+\s*(,\s*postgres(ql)?:\/\/[^\s,]+\s*)*$/, {
    message: 'must be comma-separated postgres:// or postgresql:// URLs',
  })
  DATABASE_READ_URLS?: string;

  /** false: the hot-path reads run as plain parameterized queries instead of named prepared statements (PgBouncer's transaction mode below 1.21). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DATABASE_PREPARED_STATEMENTS: boolean = true;

  @IsOptional()
  @IsString()
  @Length(1, 4096)
  DATA_DIR: string = './data';

  /** Git Sync (`/git/export`, `/git/import`) reads and writes repositories under this directory only (default `<DATA_DIR>/git`). */
  @IsOptional()
  @IsString()
  @Length(1, 4096)
  GIT_SYNC_ROOT?: string;

  @IsOptional()
  @IsUrl(urlOptions)
  PUBLIC_URL?: string;

  @IsOptional()
  @IsUrl(urlOptions)
  APP_URL?: string;

  /** Published sites served at `<organization hostname>.<SITES_BASE_DOMAIN>` (e.g. `docs.example.com`). */
  @IsOptional()
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i, {
    message: 'must be a domain name such as docs.example.com',
  })
  SITES_BASE_DOMAIN?: string;

  /** Published sites served under one base URL, `<PUBLISHED_BASE_URL>/<organization hostname>/<site basename>/…` (no DNS needed). */
  @IsOptional()
  @IsUrl(urlOptions)
  PUBLISHED_BASE_URL?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  MIGRATIONS_RUN: boolean = true;

  @IsOptional()
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'must be a size such as 512kb or 1mb' })
  BODY_LIMIT: string = '1mb';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS: number = 10_000;

  /**
   * On SIGTERM, how long `/health/ready` answers 503 while the listener still accepts, before it
   * closes: load balancers that poll readiness stop sending first. Within SHUTDOWN_TIMEOUT_MS.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_DELAY_MS: number = 0;

  /** Days a deleted space stays restorable; the hourly purge removes it afterwards (0: at the next purge). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3650)
  SPACE_RETENTION_DAYS: number = 7;

  /** Days site insights events are kept; monthly partitions wholly older are dropped by an hourly job (0: kept forever). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3650)
  INSIGHTS_RETENTION_DAYS: number = 400;

  /** Days audit events are kept; monthly partitions wholly older are detached and dropped by an hourly job (0: kept forever). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3650)
  AUDIT_RETENTION_DAYS: number = 400;

  /** Whether writes record audit events (false only to measure the recording's cost: docs/modules/audit.md). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  AUDIT_ENABLED: boolean = true;

  /** Tests: a writing route that succeeds without recording its audit event fails (500) instead of logging an error. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  AUDIT_STRICT: boolean = false;

  /** Milliseconds between two folds of new insights events into the rollups (0: no timer; tests fold by hand). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  INSIGHTS_FOLD_INTERVAL_MS: number = 2000;

  /** Ingest batches a replica stores at once; one more is refused with 429 and Retry-After (back-pressure). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  INSIGHTS_INGEST_MAX_IN_FLIGHT: number = 32;

  /** Callers already waiting for a database connection past which an ingest batch is refused with 429. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000)
  INSIGHTS_INGEST_MAX_POOL_WAITING: number = 32;

  /** Milliseconds the oldest ingest batch in flight may have been stored for before new batches are refused with 429. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600_000)
  INSIGHTS_INGEST_MAX_LAG_MS: number = 2000;

  @IsOptional()
  @IsString()
  @Length(2, 255)
  BOOTSTRAP_ORG_TITLE?: string;

  @IsOptional()
  @IsEmail()
  BOOTSTRAP_ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  BOOTSTRAP_ADMIN_NAME?: string;

  @IsOptional()
  @Matches(/^[\x21-\x7e]{32,256}$/, { message: 'must be 32 to 256 printable characters without spaces' })
  BOOTSTRAP_ADMIN_TOKEN?: string;

  /** Key that signs the visitor-claims JWT of `POST /v1/orgs/{id}/ping`; unset: a key generated once and kept in the database. */
  @IsOptional()
  @IsString()
  @Length(32, 1024)
  SIGNING_SECRET?: string;

  /**
   * Key that encrypts secrets at rest (integration secrets, signing secrets, the visitor-claims key):
   * 32 random bytes in base64 or 64 hex digits (`openssl rand -base64 32`). Unset: a key generated once
   * into `<DATA_DIR>/encryption.key` (the default for the embedded database; with several replicas or a
   * container without a volume for DATA_DIR, set it). Checked at start against the database's secrets.
   */
  @IsOptional()
  @Matches(/^\s*([\w+/-]{43}=?|[0-9a-fA-F]{64})\s*$/, { message: 'must be 32 random bytes in base64 or 64 hex digits (openssl rand -base64 32)' })
  ENCRYPTION_KEY?: string;

  /** Keys that still open secrets while a rotation (`npm run -s cli -- secrets:rotate`) re-encrypts them under ENCRYPTION_KEY; comma-separated. */
  @IsOptional()
  @Matches(/^\s*([\w+/-]{43}=?|[0-9a-fA-F]{64})\s*(,\s*([\w+/-]{43}=?|[0-9a-fA-F]{64})\s*)*$/, {
    message: 'must be comma-separated keys of 32 bytes in base64 or 64 hex digits',
  })
  ENCRYPTION_PREVIOUS_KEYS?: string;

  /** Lets outbound HTTP (website import, webhooks) reach loopback, private and link-local addresses. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  OUTBOUND_ALLOW_PRIVATE: boolean = false;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  OUTBOUND_TIMEOUT_MS: number = 15_000;

  /** Wall time of one integration script call before its workerd process is killed. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  INTEGRATION_SCRIPT_TIMEOUT_MS: number = 5_000;

  /** Resident memory of one integration's workerd process past which its call is ended (MB). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(64)
  @Max(8192)
  INTEGRATION_SCRIPT_MEMORY_MB: number = 256;

  /**
   * Wall time a workerd process may keep working after it answered (`ctx.waitUntil`). Past it, a process
   * still using CPU is killed (the next call starts a fresh one). Memory is watched for the whole life.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  INTEGRATION_SCRIPT_AFTER_ANSWER_MS: number = 2_000;

  /** Days integration events (deliveries, renders, public-endpoint calls, script fetches) are kept. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  INTEGRATION_EVENT_RETENTION_DAYS: number = 14;

  /** workerd processes alive at once (one per integration; least recently used closed first). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  INTEGRATION_SANDBOX_INSTANCES: number = 16;

  /** Minutes a `PUT …/dev` keeps development mode on (the CLI never sends the DELETE). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1440)
  INTEGRATION_DEV_MODE_MINUTES: number = 60;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  IMPORT_MAX_PAGES: number = 500;

  /** Search ranks at most this many title matches and this many body matches per query (docs/scaling.md). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(100_000)
  SEARCH_CANDIDATES: number = 500;

  /**
   * GitBook's renderer beside Quire (docs/readers.md): its base URL, whose `/~gitbook/revalidate` is told
   * which cache tags to drop when a published site changes, signed with RENDERER_SECRET (the renderer's
   * GITBOOK_SECRET). Both set, or nothing is sent.
   */
  @IsOptional()
  @IsUrl(urlOptions)
  RENDERER_URL?: string;

  @IsOptional()
  @IsString()
  @Length(16, 1024)
  RENDERER_SECRET?: string;

  /** A rebuild of this many pages or more writes the space's search rows to a table of its own, indexed once (docs/scaling.md). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SEARCH_TABLE_AFTER: number = 20_000;

  /**
   * A revision written as a layer over a full base stores at most max(this, 10% of the base's pages)
   * page rows of its own; past that it is written full (docs/modules/content.md, "Revision layers").
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  REVISION_LAYER_MIN_ROWS: number = 1000;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100)
  IMPORT_MAX_DEPTH: number = 10;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(10 * 1024 * 1024 * 1024)
  IMPORT_MAX_BYTES: number = 200 * 1024 * 1024;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  IMPORT_TIMEOUT_MS: number = 300_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(32)
  IMPORT_CONCURRENCY: number = 4;

  /** Largest OpenAPI specification accepted, in bytes: the entry file and every file it references together. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  OPENAPI_MAX_BYTES: number = 10 * 1024 * 1024;

  /** Most files one specification from a URL may consist of (the entry file and the files its `$ref`s name). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  OPENAPI_MAX_FILES: number = 100;

  /** Deepest chain of files a specification's external `$ref`s may follow (entry → a → b is 2). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100)
  OPENAPI_MAX_REF_DEPTH: number = 10;

  /** Time limit of fetching one specification from a URL, every referenced file included, in milliseconds. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  OPENAPI_FETCH_TIMEOUT_MS: number = 60_000;

  /** Whether this replica runs job workers, pg-boss maintenance and cron schedules (false: it only sends jobs). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  JOBS_ENABLED: boolean = true;

  /** Jobs of one queue one replica runs at once (a job declaration may set its own). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  JOBS_CONCURRENCY: number = 2;

  /** How often an idle worker asks PostgreSQL for work, in milliseconds (pg-boss's minimum is 500). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(500)
  @Max(600_000)
  JOBS_POLL_INTERVAL_MS: number = 2000;

  /** How long a fetch of a change request's PDF url waits for the render job before answering 202 (milliseconds; 0: never waits). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  PDF_RENDER_WAIT_MS: number = 10_000;

  /**
   * Redis that keeps the rate-limit and lockout counters every replica shares (`redis://[:password@]host:port[/db]`,
   * `rediss://` for TLS), and with DATABASE_READ_URLS the read-your-writes positions. Unset: each replica keeps them in its own memory.
   */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** Prefix of every Redis key Quire writes: replicas of one installation share it, other installations on the same Redis do not. */
  @IsOptional()
  @Matches(/^[\w:.-]{0,64}$/, { message: 'must be at most 64 letters, digits, _ - . or :' })
  REDIS_KEY_PREFIX: string = 'quire:';

  /** Longest wait for Redis (connecting, one command) before a request goes on without the shared limits (fail open). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10_000)
  REDIS_TIMEOUT_MS: number = 250;

  /** Rate limits (in memory per replica, or on Redis when REDIS_URL is set): requests per window per client address and per token; 0 turns one off. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_ADDRESS: number = 1200;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_TOKEN: number = 600;

  /** Requests per window of one integration installation's script tokens (every call of a script back to the API); 0: off. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_INSTALLATION: number = 600;

  /**
   * Proxies whose `X-Forwarded-For` (and `X-Forwarded-Proto`) is believed, comma-separated: addresses,
   * CIDR ranges, or express's names `loopback`, `linklocal`, `uniquelocal`. Unset: none, so the client
   * address is the socket's. Name your load balancer here, never a range clients share.
   */
  @IsOptional()
  @Matches(/^\s*[0-9A-Za-z.:/]+(\s*,\s*[0-9A-Za-z.:/]+)*\s*$/, {
    message: 'must be a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal',
  })
  TRUST_PROXY?: string;

  /** Failed authentications (401) an address may have per AUTH_FAILURE_WINDOW_SECONDS before it is refused for that long; 0: off. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  AUTH_FAILURE_LIMIT: number = 10;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUTH_FAILURE_WINDOW_SECONDS: number = 300;

  /** `/metrics` on the public port needs `Authorization: Bearer <METRICS_TOKEN>`; unset (and no METRICS_PORT): not served. */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'must be 16 to 256 printable characters without spaces' })
  METRICS_TOKEN?: string;

  /** Serves `/metrics` on its own listener (HOST:METRICS_PORT) instead of the public port. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;
  /** Input gate: most keys in one JSON object of a request body (more: 400). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  INPUT_MAX_KEYS: number = 1000;

  /** Input gate: most items in one JSON array of a request body (more: 400). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  INPUT_MAX_ARRAY_LENGTH: number = 1000;

  /** Input gate: deepest nesting of objects and arrays in a request body (deeper: 400). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  INPUT_MAX_DEPTH: number = 64;
}

export class ConfigError extends Error {}

const TYPE_CONSTRAINTS = ['isInt', 'isBoolean', 'isIn', 'isUrl', 'isEmail', 'matches'];
/** Variables that hold passwords or tokens: never echoed in an error line; kept in the Kubernetes Secret (deploy/kubernetes). */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'DATABASE_DIRECT_URL',
  'DATABASE_READ_URLS',
  'SIGNING_SECRET',
  'BOOTSTRAP_ADMIN_TOKEN',
  'ENCRYPTION_KEY',
  'ENCRYPTION_PREVIOUS_KEYS',
  'RENDERER_SECRET',
  'METRICS_TOKEN',
  'REDIS_URL',
]);

/** Parses and validates `env`; throws a ConfigError whose message names the first bad variable. */
export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  // An empty variable counts as unset, as in most deployment tools.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = plainToInstance(EnvironmentVariables, present);
  const errors = validateSync(parsed);
  if (errors.length > 0) {
    const first = errors[0];
    const constraints = first.constraints ?? {};
    // The type check speaks first: PORT=abc "must be an integer number", not "must not be greater than 65535".
    const key = TYPE_CONSTRAINTS.find((name) => name in constraints) ?? Object.keys(constraints)[0];
    const reason = (key ? constraints[key] : 'is invalid').replace(`${first.property} `, '');
    const shown = SECRET_VARIABLES.has(first.property) ? '' : ` (got ${JSON.stringify(String(first.value))})`;
    throw new ConfigError(`Invalid environment variable ${first.property}: ${reason}${shown}`);
  }
  const bootstrap = [parsed.BOOTSTRAP_ORG_TITLE, parsed.BOOTSTRAP_ADMIN_EMAIL];
  if (bootstrap.some(Boolean) && !bootstrap.every(Boolean)) {
    throw new ConfigError('Invalid environment variable BOOTSTRAP_ADMIN_EMAIL: BOOTSTRAP_ORG_TITLE and BOOTSTRAP_ADMIN_EMAIL must be set together');
  }
  if (parsed.BOOTSTRAP_ADMIN_TOKEN && !parsed.BOOTSTRAP_ORG_TITLE) {
    throw new ConfigError('Invalid environment variable BOOTSTRAP_ADMIN_TOKEN: needs BOOTSTRAP_ORG_TITLE and BOOTSTRAP_ADMIN_EMAIL');
  }
  return parsed;
}
