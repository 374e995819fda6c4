import { Client } from 'pg';

/** A start-up failure worth one plain line to the operator instead of a stack trace. */
export class StartupError extends Error {}

/**
 * Connects once to DATABASE_URL before the application is built, so the usual mistakes (the
 * database does not exist, nothing listens there, the credentials are wrong) stop the process
 * with one line that says what to do, instead of TypeORM's retries and stack traces.
 */
export async function checkDatabase(url: string, timeoutMs = 5000): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'quire-preflight' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new StartupError(describeConnectionError(error, url));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One line per kind of mistake, naming the server and database but never the password. */
export function describeConnectionError(error: unknown, url: string): string {
  const target = describeTarget(url);
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case '3D000':
      return (
        `Cannot start: database "${target.database}" does not exist on ${target.server}. ` +
        `Create it (createdb -h ${target.host} -p ${target.port} -U ${target.user} ${target.database}), ` +
        `or unset DATABASE_URL to use the embedded PostgreSQL under DATA_DIR.`
      );
    case '28P01':
    case '28000':
      return `Cannot start: PostgreSQL on ${target.server} refused user "${target.user}" (${message}). Fix the user name and password in DATABASE_URL.`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return `Cannot start: no PostgreSQL reachable on ${target.server} (${code}). Start it or fix the host and port in DATABASE_URL, or unset DATABASE_URL to use the embedded PostgreSQL.`;
    default:
      if (/timeout/i.test(message ?? '')) {
        return `Cannot start: PostgreSQL on ${target.server} did not answer in time. Check the host and port in DATABASE_URL.`;
      }
      return `Cannot start: could not connect to PostgreSQL on ${target.server}: ${message ?? String(error)}${code ? ` (${code})` : ''}.`;
  }
}

function describeTarget(url: string) {
  const parsed = new URL(url);
  const host = parsed.hostname || 'localhost';
  const port = parsed.port || '5432';
  const user = decodeURIComponent(parsed.username) || 'postgres';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  return { host, port, user, database, server: `${host}:${port}` };
}
