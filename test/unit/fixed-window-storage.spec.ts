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
});
