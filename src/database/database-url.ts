import { AppConfig } from '../config/app-config';
import { startEmbeddedPostgres } from './embedded-postgres';

export { EmbeddedDatabaseError } from './embedded-postgres';

export interface ResolvedDatabase {
  url: string;
  /** Where session-level work connects (DATABASE_DIRECT_URL; else `url`). */
  directUrl: string;
  embedded: boolean;
  /** Stops the embedded cluster if this process started it; a no-op otherwise. */
  release(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR (one code path after this). */
export async function resolveDatabase(config: AppConfig, log: (line: string) => void): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, directUrl: config.databaseDirectUrl ?? config.databaseUrl, embedded: false, release: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres(config.dataDir, log);
  // The embedded PostgreSQL is direct: DATABASE_DIRECT_URL only goes with DATABASE_URL.
  return { url: embedded.url, directUrl: embedded.url, embedded: true, release: () => embedded.stop() };
}
