import Redis from 'ioredis';

/**
 * A Redis client for counters and positions that must never hold a request up: it connects on first use,
 * queues nothing while disconnected, retries no command, and gives up on a connection or a command after
 * `timeoutMs`; the caller falls back (limits fail open, reads go to the primary). Reconnects in the background.
 */
export function failFastRedis(url: string, timeoutMs: number): Redis {
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}
