import { MAX_QUEUE_WAIT_MS, SpaceTurns } from '../../src/modules/space-writes/space-turns';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SpaceTurns: the queue of a space’s writers in front of its row lock', () => {
  it('lets one writer at a time go to the lock, in arrival order, the next as soon as the previous holds it', async () => {
    const turns = new SpaceTurns();
    const started: string[] = [];
    const locks: Record<string, () => void> = {};
    let approaching = 0;
    let most = 0;
    const writer = (name: string) =>
      turns.take('space-1', async (locked) => {
        started.push(name);
        most = Math.max(most, ++approaching);
        await new Promise<void>((resolve) => (locks[name] = resolve));
        approaching--;
        locked();
        await tick(); // the work under the lock, then the commit
      });
    const all = ['a', 'b', 'c', 'd', 'e'].map(writer);
    await tick();
    expect(started).toEqual(['a']);
    // The later writers get the lock out of order, as PostgreSQL may give it: the queue still starts them in arrival order.
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      locks[name]();
      await tick();
      await tick();
    }
    await Promise.all(all);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(most).toBe(1);
    expect((turns as unknown as { lines: Map<string, unknown> }).lines.size).toBe(0);
  });

  it('does not hold writers of other spaces', async () => {
    const turns = new SpaceTurns();
    let release!: () => void;
    const first = turns.take('space-1', () => new Promise<void>((resolve) => (release = resolve)));
    await expect(turns.take('space-2', async () => 'other')).resolves.toBe('other');
    release();
    await first;
  });

  it('a write inside a write skips the queue instead of waiting for itself', async () => {
    const turns = new SpaceTurns();
    await expect(turns.take('space-1', () => turns.take('space-1', async () => 'nested'))).resolves.toBe('nested');
  });

  it('passes the next writer on after MAX_QUEUE_WAIT_MS when the one ahead never gets the lock', async () => {
    const turns = new SpaceTurns();
    let release!: () => void;
    const stuck = turns.take('space-1', () => new Promise<void>((resolve) => (release = resolve)));
    const started = Date.now();
    await turns.take('space-1', async () => undefined);
    expect(Date.now() - started).toBeGreaterThanOrEqual(MAX_QUEUE_WAIT_MS - 50);
    release();
    await stuck;
    expect((turns as unknown as { lines: Map<string, unknown> }).lines.size).toBe(0);
  }, 10_000);

  it('a writer failing before the lock hands its place on', async () => {
    const turns = new SpaceTurns();
    const failing = turns.take('space-1', async () => {
      await tick();
      throw new Error('refused');
    });
    const next = turns.take('space-1', async () => 'next');
    await expect(failing).rejects.toThrow('refused');
    await expect(next).resolves.toBe('next');
  });
});
