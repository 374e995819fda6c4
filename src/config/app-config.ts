import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError, EnvironmentVariables, LogLevel, validateEnvironment } from './env.schema';

/** Typed, validated configuration; the one object the rest of the code reads settings from. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl?: string;
  readonly databasePoolSize: number;
  /** DATABASE_DIRECT_URL: where session-level work connects when DATABASE_URL is a transaction pooler (undefined: DATABASE_URL). */
  readonly databaseDirectUrl?: string;
  /** DATABASE_READ_URLS: streaming replicas for reads that tolerate lag (empty: every read on the primary). */
  readonly databaseReadUrls: string[];
  /** DATABASE_PREPARED_STATEMENTS: whether the hot-path reads use named prepared statements. */
  readonly databasePreparedStatements: boolean;
  readonly dataDir: string;
  /** GIT_SYNC_ROOT, absolute: the only directory Git Sync reads or writes repositories in. */
  readonly gitSyncRoot: string;
  /** Base of every `urls.location` (the API as clients reach it), without a trailing slash. */
  readonly publicUrl: string;
  /**
   * Base of every `urls.app` when a web application is configured (APP_URL), without a trailing slash;
   * undefined when Quire runs alone, and `urls.app` then names the resource in the API (see `appLink`).
   */
  readonly appUrl?: string;
  readonly logLevel: LogLevel;
  readonly migrationsRun: boolean;
  readonly bodyLimit: string;
  readonly shutdownTimeoutMs: number;
  /** SHUTDOWN_DRAIN_DELAY_MS: readiness 503 before the listener closes. */
  readonly shutdownDrainDelayMs: number;
  /** Where the shared rate-limit counters live (REDIS_URL); undefined: in memory per replica. */
  readonly redis?: { url: string; keyPrefix: string; timeoutMs: number };
  /** Days a deleted space stays restorable before the purge removes it (SPACE_RETENTION_DAYS). */
  readonly spaceRetentionDays: number;
  /** Days site insights events are kept before their partition is dropped (INSIGHTS_RETENTION_DAYS; 0: forever). */
  readonly insightsRetentionDays: number;
  /** Days audit events are kept before their partition is detached and dropped (AUDIT_RETENTION_DAYS; 0: forever). */
  readonly auditRetentionDays: number;
  /** AUDIT_ENABLED: whether writes record audit events (on unless a bench turns it off). */
  readonly auditEnabled: boolean;
  /** AUDIT_STRICT (tests): a write that records no event fails instead of logging an error. */
  readonly auditStrict: boolean;
  /** Insights fold period and ingest back-pressure limits (INSIGHTS_FOLD_INTERVAL_MS, INSIGHTS_INGEST_MAX_IN_FLIGHT, INSIGHTS_INGEST_MAX_LAG_MS, INSIGHTS_INGEST_MAX_POOL_WAITING). */
  readonly insights: { foldIntervalMs: number; maxInFlight: number; maxLagMs: number; maxPoolWaiting: number };
  readonly bootstrap?: { orgTitle: string; email: string; name?: string; token?: string };
  /** SIGNING_SECRET; when unset, signing uses a secret generated once and stored in the database. */
  readonly signingSecret?: string;
  /** ENCRYPTION_KEY (unset: the key file under DATA_DIR) and ENCRYPTION_PREVIOUS_KEYS, as written; `common/crypto/secret-cipher.ts` parses them. */
  readonly encryption: { key?: string; previousKeys: string[] };
  /** Outbound HTTP: whether private targets are allowed, and the per-request time limit. */
  readonly outbound: { allowPrivate: boolean; timeoutMs: number };
  /** Integration scripts: the sandbox's limits per call and its instance count; how long dev mode lasts. */
  readonly integrations: {
    sandbox: { timeoutMs: number; memoryBytes: number; afterAnswerMs: number; requestBytes: number; responseBytes: number; maxInstances: number };
    devModeMs: number;
    /** Days an integration event (delivered, rendered, fetched) is kept before the retention purge deletes it. */
    eventRetentionDays: number;
  };
  /** Search: how many title and body matches are ranked per query; the pages from which a rebuild gets a table of its own. */
  readonly search: { candidates: number; tableAfter: number };
  /** GitBook's renderer to tell about changes of published sites (RENDERER_URL without a trailing slash, RENDERER_SECRET); undefined unless both are set. */
  readonly renderer?: { url: string; secret: string };
  /** Revision layers: a layer's own page rows may reach max(minRows, maxShare × its base's pages) before it is written full. */
  readonly revisionLayers: { minRows: number; maxShare: number };
  /** Bounds of one website import. */
  readonly contentImport: { maxPages: number; maxDepth: number; maxBytes: number; timeoutMs: number; concurrency: number };
  /** Bounds of one OpenAPI specification: bytes (all files), files, depth of external `$ref` chains, fetch time. */
  readonly openapi: { maxBytes: number; maxFiles: number; maxRefDepth: number; fetchTimeoutMs: number };
  /** Background jobs: whether this replica runs workers, their concurrency per queue, and the idle poll interval. */
  readonly jobs: { enabled: boolean; concurrency: number; pollIntervalMs: number };
  /** How long a fetch of a change request's PDF waits for its render job before answering 202 (ms). */
  readonly pdfRenderWaitMs: number;
  /** Requests per window per address and per token, and the failed-authentication budget per address (0: off). */
  readonly rateLimit: { windowMs: number; perAddress: number; perToken: number; perInstallation: number; authFailures: number; authFailureWindowMs: number };
  /** Proxies whose forwarded headers are believed (TRUST_PROXY): express's `trust proxy` list; empty: none. */
  readonly trustProxy: string[];
  /** `/metrics`: behind METRICS_TOKEN on the public port, and/or on its own METRICS_PORT; neither: not served. */
  readonly metrics: { token?: string; port?: number };
  /** Shape limits of a JSON request body, checked by the input gate before anything validates it. */
  readonly input: { maxKeys: number; maxArrayLength: number; maxDepth: number };
  /** Where published sites are reached besides their own hostnames: `<org>.<sitesBaseDomain>`, and paths under `baseUrl` (no trailing slash). */
  readonly published: { sitesBaseDomain?: string; baseUrl?: string };

  constructor(env: EnvironmentVariables) {
    this.port = env.PORT;
    this.host = env.HOST;
    this.databaseUrl = env.DATABASE_URL;
    this.databasePoolSize = env.DATABASE_POOL_SIZE;
    this.databaseDirectUrl = env.DATABASE_DIRECT_URL || undefined;
    this.databaseReadUrls = (env.DATABASE_READ_URLS ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean);
    this.databasePreparedStatements = env.DATABASE_PREPARED_STATEMENTS;
    this.dataDir = resolve(env.DATA_DIR);
    this.gitSyncRoot = resolve(env.GIT_SYNC_ROOT ?? join(this.dataDir, 'git'));
    this.publicUrl = trimSlash(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`);
    this.appUrl = env.APP_URL ? trimSlash(env.APP_URL) : undefined;
    this.logLevel = env.LOG_LEVEL;
    this.migrationsRun = env.MIGRATIONS_RUN;
    this.bodyLimit = env.BODY_LIMIT;
    this.shutdownTimeoutMs = env.SHUTDOWN_TIMEOUT_MS;
    this.shutdownDrainDelayMs = env.SHUTDOWN_DRAIN_DELAY_MS;
    this.redis = env.REDIS_URL ? { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX, timeoutMs: env.REDIS_TIMEOUT_MS } : undefined;
    this.spaceRetentionDays = env.SPACE_RETENTION_DAYS;
    this.insightsRetentionDays = env.INSIGHTS_RETENTION_DAYS;
    this.auditRetentionDays = env.AUDIT_RETENTION_DAYS;
    this.auditEnabled = env.AUDIT_ENABLED;
    this.auditStrict = env.AUDIT_STRICT;
    this.insights = {
      foldIntervalMs: env.INSIGHTS_FOLD_INTERVAL_MS,
      maxInFlight: env.INSIGHTS_INGEST_MAX_IN_FLIGHT,
      maxLagMs: env.INSIGHTS_INGEST_MAX_LAG_MS,
      maxPoolWaiting: env.INSIGHTS_INGEST_MAX_POOL_WAITING,
    };
    this.signingSecret = env.SIGNING_SECRET;
    this.encryption = {
      key: env.ENCRYPTION_KEY?.trim(),
      previousKeys: (env.ENCRYPTION_PREVIOUS_KEYS ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    };
    this.outbound = { allowPrivate: env.OUTBOUND_ALLOW_PRIVATE, timeoutMs: env.OUTBOUND_TIMEOUT_MS };
    this.search = { candidates: env.SEARCH_CANDIDATES, tableAfter: env.SEARCH_TABLE_AFTER };
    if (env.RENDERER_URL && env.RENDERER_SECRET) this.renderer = { url: trimSlash(env.RENDERER_URL), secret: env.RENDERER_SECRET };
    this.revisionLayers = { minRows: env.REVISION_LAYER_MIN_ROWS, maxShare: 0.1 };
    this.integrations = {
      sandbox: {
        timeoutMs: env.INTEGRATION_SCRIPT_TIMEOUT_MS,
        memoryBytes: env.INTEGRATION_SCRIPT_MEMORY_MB * 1024 * 1024,
        afterAnswerMs: env.INTEGRATION_SCRIPT_AFTER_ANSWER_MS,
        requestBytes: 1024 * 1024,
        responseBytes: 5 * 1024 * 1024,
        maxInstances: env.INTEGRATION_SANDBOX_INSTANCES,
      },
      devModeMs: env.INTEGRATION_DEV_MODE_MINUTES * 60_000,
      eventRetentionDays: env.INTEGRATION_EVENT_RETENTION_DAYS,
    };
    this.contentImport = {
      maxPages: env.IMPORT_MAX_PAGES,
      maxDepth: env.IMPORT_MAX_DEPTH,
      maxBytes: env.IMPORT_MAX_BYTES,
      timeoutMs: env.IMPORT_TIMEOUT_MS,
      concurrency: env.IMPORT_CONCURRENCY,
    };
    this.openapi = {
      maxBytes: env.OPENAPI_MAX_BYTES,
      maxFiles: env.OPENAPI_MAX_FILES,
      maxRefDepth: env.OPENAPI_MAX_REF_DEPTH,
      fetchTimeoutMs: env.OPENAPI_FETCH_TIMEOUT_MS,
    };
    this.jobs = { enabled: env.JOBS_ENABLED, concurrency: env.JOBS_CONCURRENCY, pollIntervalMs: env.JOBS_POLL_INTERVAL_MS };
    this.pdfRenderWaitMs = env.PDF_RENDER_WAIT_MS;
    this.rateLimit = {
      windowMs: env.RATE_LIMIT_WINDOW_SECONDS * 1000,
      perAddress: env.RATE_LIMIT_PER_ADDRESS,
      perToken: env.RATE_LIMIT_PER_TOKEN,
      perInstallation: env.RATE_LIMIT_PER_INSTALLATION,
      authFailures: env.AUTH_FAILURE_LIMIT,
      authFailureWindowMs: env.AUTH_FAILURE_WINDOW_SECONDS * 1000,
    };
    this.trustProxy = parseTrustProxy(env.TRUST_PROXY);
    this.metrics = { token: env.METRICS_TOKEN, port: env.METRICS_PORT };
    this.published = { sitesBaseDomain: env.SITES_BASE_DOMAIN?.toLowerCase(), baseUrl: env.PUBLISHED_BASE_URL ? trimSlash(env.PUBLISHED_BASE_URL) : undefined };
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

  /**
   * `urls.app` of a resource: its page in the web application (`appPath`, such as `/o/abc`) when APP_URL
   * names one; otherwise the resource in this API (`apiPath`), because Quire serves no web pages and a
   * link it hands out should answer rather than 404.
   */
  appLink(appPath: string, apiPath: string): string {
    return this.appUrl ? `${this.appUrl}${appPath}` : this.apiUrl(apiPath);
  }
}

/** TRUST_PROXY as express's `trust proxy` list: addresses, CIDR ranges, or its names for the private ranges. */
function parseTrustProxy(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!named && (family === 0 || !prefixOk || extra !== undefined)) {
      throw new ConfigError(
        `Invalid environment variable TRUST_PROXY: ${JSON.stringify(entry)} is not an address, a CIDR range, loopback, linklocal or uniquelocal`,
      );
    }
  }
  return entries;
}

function trimSlash(url: string): string {
  // A loop, not `/\/+$/`: that pattern retries from every slash of a run (regexp/no-super-linear-move).
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return new AppConfig(validateEnvironment(env));
}
