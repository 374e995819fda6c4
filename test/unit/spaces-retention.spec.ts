import { loadConfig } from '../../src/config/app-config';
import { Clock } from '../../src/modules/spaces/clock';
import { SpaceRetentionService } from '../../src/modules/spaces/space-retention.service';

const DAY = 86_400_000;

/** The retention arithmetic only: the purge itself runs against PostgreSQL in the e2e tests. */
function retention(env: Record<string, string>, now: Date): SpaceRetentionService {
  const clock = new Clock();
  jest.spyOn(clock, 'now').mockReturnValue(now);
  return new SpaceRetentionService(null as never, loadConfig(env), clock, null as never, null as never, null as never);
}

describe('space retention', () => {
  const now = new Date('2030-01-10T12:00:00.000Z');

  it('keeps a deleted space restorable for 7 days by default, up to the millisecond', () => {
    const service = retention({}, now);
    expect(service.cutoff()).toEqual(new Date('2030-01-03T12:00:00.000Z'));
    expect(service.isRestorable(new Date(now.getTime() - 7 * DAY + 1))).toBe(true);
    expect(service.isRestorable(new Date(now.getTime() - 7 * DAY))).toBe(false);
  });

  it('follows SPACE_RETENTION_DAYS, where 0 leaves nothing to restore', () => {
    expect(retention({ SPACE_RETENTION_DAYS: '30' }, now).isRestorable(new Date(now.getTime() - 29 * DAY))).toBe(true);
    expect(retention({ SPACE_RETENTION_DAYS: '0' }, now).isRestorable(now)).toBe(false);
  });

  it.each([['-1'], ['3651'], ['1.5'], ['week']])('refuses SPACE_RETENTION_DAYS=%s at start, naming the variable', (value) => {
    expect(() => loadConfig({ SPACE_RETENTION_DAYS: value })).toThrow(/^Invalid environment variable SPACE_RETENTION_DAYS: /);
  });
});
