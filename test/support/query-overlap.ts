import { Client } from 'pg';

type Observed = Client & { _activeQuery?: unknown; _queryQueue?: unknown[]; pipeline?: boolean };

/**
 * The statements the app sent on a connection still running another one while `run` ran: pg queues them today, warns
 * that it is deprecated ("Calling client.query() when the client is already executing a query"), and will refuse
 * them in pg 9. A transaction's reads side by side (`Promise.all` on one `EntityManager`) are the usual cause.
 * Observes every pg client of this module registry (the in-process app's included) until `run` settles.
 */
export async function overlappingQueries(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Observed, ...args: unknown[]) {
    if (!this.pipeline && (this._activeQuery || (this._queryQueue?.length ?? 0) > 0)) {
      const first = args[0] as string | { text?: string; name?: string };
      seen.push((typeof first === 'string' ? first : (first?.name ?? first?.text ?? '')).replace(/\s+/g, ' ').slice(0, 120));
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await run();
  } finally {
    Client.prototype.query = original;
  }
  return seen;
}
