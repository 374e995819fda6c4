import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads `.env` from the working directory into `process.env`, as `.env.example` invites. Variables
 * already set in the environment win over the file (Node's own loader keeps existing values), so a
 * deployment's environment always overrides a developer's file. No file, nothing happens.
 */
export function loadDotEnv(directory: string = process.cwd()): string | undefined {
  const file = join(directory, '.env');
  if (!existsSync(file)) return undefined;
  process.loadEnvFile(file);
  return file;
}
