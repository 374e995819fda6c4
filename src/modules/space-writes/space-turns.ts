import { ScopedStorage } from '../../common/async/scoped-storage';

/** Longest wait in the process's queue; past it a writer goes to PostgreSQL's lock queue as it would without this one. */
export const MAX_QUEUE_WAIT_MS = 2_000;
/** Writers of a space on their way to its row lock at once (left the queue, not holding the lock yet). */
export const APPROACHING = 1;

interface Line {
  /** Writers on their way to the row lock (left the queue, have not got the lock yet). */
  approaching: number;
  waiting: (() => void)[];
}

// Scoped, so the process-wide async hook is on only while some write runs (decision 0068).
const inside = new ScopedStorage<true>();

/**
 * A first-come, first-served queue per space in front of its row lock. PostgreSQL wakes every waiter of
 * a row lock when its holder commits, and they race for it: with ten concurrent writers of one space, a
 * writer could lose that race several times over, so the slowest waited many times the queue's length.
 * Here one writer of a space at a time goes to the row lock; once it holds the lock, the next in line
 * leaves the queue and waits at PostgreSQL, so the lock passes to it as soon as the holder commits (the
 * row is never idle between writers) and never to a crowd. The others wait in arrival order, without a
 * transaction or a pool connection. The row lock stays what serializes writers (other processes, other
 * replicas); this queue only orders this process's own. A write inside another write (a nested run)
 * skips it, and a wait is bounded, so it can never deadlock behind a lock PostgreSQL would see.
 */
export class SpaceTurns {
  private readonly lines = new Map<string, Line>();

  /** Runs `work`, which calls `locked()` once it holds the space's row lock (or ends without it). */
  async take<T>(spaceId: string, work: (locked: () => void) => Promise<T>): Promise<T> {
    if (inside.getStore()) return work(() => undefined);
    let line = this.lines.get(spaceId);
    if (!line) this.lines.set(spaceId, (line = { approaching: 0, waiting: [] }));
    // A writer that gets the lock hands its place to the first in line, so no newcomer passes the queue.
    if (line.approaching < APPROACHING) line.approaching++;
    else await this.wait(line);
    let done = false;
    const current = line;
    const locked = () => {
      if (done) return;
      done = true;
      const next = current.waiting.shift();
      if (next) next();
      else if (--current.approaching === 0 && this.lines.get(spaceId) === current) this.lines.delete(spaceId);
    };
    try {
      return await inside.run(true, () => work(locked));
    } finally {
      locked();
    }
  }

  private wait(line: Line): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        const at = line.waiting.indexOf(go);
        if (at >= 0) line.waiting.splice(at, 1);
        line.approaching++;
        resolve();
      }, MAX_QUEUE_WAIT_MS).unref();
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      line.waiting.push(go);
    });
  }
}
