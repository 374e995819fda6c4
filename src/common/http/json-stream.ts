import { Logger } from '@nestjs/common';
import type { Response } from 'express';

const logger = new Logger('JsonStream');

/**
 * Sends a 200 JSON body made of `chunks` as they come, waiting for the client to drain each one
 * (so a slow client holds memory of one chunk, not of the whole body). A client that goes away
 * stops the producer (its `finally` blocks run: cursors close, connections return to the pool).
 * A failure after the first byte cannot become an error envelope: the response is cut, so the
 * client sees a truncated body, never a complete-looking wrong one.
 */
export async function sendJsonStream(res: Response, chunks: AsyncIterable<string>): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  res.status(200);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (res.destroyed) {
        await iterator.return?.();
        return;
      }
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    res.end();
  } catch (error) {
    logger.error(`streamed response cut: ${(error as Error).message}`);
    await iterator.return?.().catch(() => undefined);
    res.destroy(error as Error);
  }
}
