import { FixedWindowStorage } from '../../src/common/rate-limit/fixed-window.storage';

/** The rate limits' counters: one per key and window, a block that outlasts the window, keys kept apart. */
describe('FixedWindowStorage', () => {
  let storage: FixedWindowStorage;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    storage = new FixedWindowStorage();
  });
  afterEach(() => {
    storage.onModuleDestroy();
    jest.useRealTimers();
  });

  it('counts hits in a window, refuses past the limit, and starts again when the window ends', async () => {
    for (let hit = 1; hit <= 3; hit++) expect(await storage.increment('a', 60_000, 3, 0, 'address')).toMatchObject({ totalHits: hit, isBlocked: false });
    expect(await storage.increment('a', 60_000, 3, 0, 'address')).toMatchObject({ totalHits: 4, isBlocked: true, timeToExpire: 60 });
    jest.advanceTimersByTime(60_000);
    expect(await storage.increment('a', 60_000, 3, 0, 'address')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('keeps a block for its own duration, counting nothing meanwhile', async () => {
    await storage.increment('ip', 300_000, 1, 300_000, 'auth-failure');
    expect(storage.blockedSeconds('ip', 'auth-failure')).toBe(0);
    expect(await storage.increment('ip', 300_000, 1, 300_000, 'auth-failure')).toMatchObject({ isBlocked: true, timeToBlockExpire: 300 });
    jest.advanceTimersByTime(299_000);
    expect(storage.blockedSeconds('ip', 'auth-failure')).toBe(1);
    expect(await storage.increment('ip', 300_000, 1, 300_000, 'auth-failure')).toMatchObject({ totalHits: 2, isBlocked: true });
    jest.advanceTimersByTime(1_000);
    expect(storage.blockedSeconds('ip', 'auth-failure')).toBe(0);
    expect(await storage.increment('ip', 300_000, 1, 300_000, 'auth-failure')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('keeps keys and budgets apart', async () => {
    await storage.increment('a', 60_000, 1, 0, 'address');
    expect(await storage.increment('b', 60_000, 1, 0, 'address')).toMatchObject({ totalHits: 1 });
    expect(await storage.increment('a', 60_000, 1, 0, 'token')).toMatchObject({ totalHits: 1 });
  });

  it('take: reads the lockout and counts every budget; a lockout that refuses at once counts nothing', () => {
    const budgets = [
      { name: 'address', key: 'address:a', limit: 5, windowMs: 60_000 },
      { name: 'token', key: 'token:t', limit: 8, windowMs: 60_000 },
    ];
    expect(storage.take({ key: 'ip', name: 'auth-failure', refusesAtOnce: true }, budgets)).toMatchObject({
      blockedFor: 0,
      records: [{ totalHits: 1 }, { totalHits: 1 }],
    });
    storage.hit('ip', 300_000, 0, 300_000, 'auth-failure'); // past a limit of 0: blocked for 300 s
    // With a token to try, the lockout is read and the budgets counted (the authenticator decides).
    expect(storage.take({ key: 'ip', name: 'auth-failure', refusesAtOnce: false }, budgets)).toMatchObject({
      blockedFor: 300,
      records: [{ totalHits: 2 }, { totalHits: 2 }],
    });
    expect(storage.take({ key: 'ip', name: 'auth-failure', refusesAtOnce: true }, budgets)).toEqual({ blockedFor: 300, records: [] });
    expect(storage.hit('address:a', 60_000, 5, 0, 'address').totalHits).toBe(3);
    expect(storage.take(undefined, budgets.slice(1)).records[0].totalHits).toBe(3);
  });
});
