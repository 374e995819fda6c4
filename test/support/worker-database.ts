import { TEST_DATABASE_URL } from './database';
import { workerDatabaseVariable } from './global-setup';

// Runs before each e2e file, in its worker: the worker's own database (global-setup.ts) becomes the run's
// database for this file, so every helper reading TEST_DATABASE_URL (apps, servers, the CLI) uses it.
const worker = Number(process.env.JEST_WORKER_ID ?? 1);
const own = worker > 1 ? process.env[workerDatabaseVariable(worker)] : undefined;
if (own) process.env[TEST_DATABASE_URL] = own;
