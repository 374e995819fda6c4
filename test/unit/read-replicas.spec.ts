import { loadConfig } from '../../src/config/app-config';
import { parseLsn } from '../../src/database/read-replicas';

describe('read replicas and PgBouncer settings', () => {
  it('orders WAL positions as PostgreSQL does, past 32 bits', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')).toBeGreaterThan(parseLsn('0/FFFFFFFF'));
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it('reads DATABASE_READ_URLS (comma-separated), DATABASE_DIRECT_URL and DATABASE_PREPARED_STATEMENTS', () => {
    const config = loadConfig({
      DATABASE_READ_URLS: ' postgres://r1:5432/quire , postgresql://u:p@r2/quire',
      DATABASE_DIRECT_URL: 'postgres://db:5432/quire',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    expect(config.databaseReadUrls).toEqual(['postgres://r1:5432/quire', 'postgresql://u:p@r2/quire']);
    expect(config.databaseDirectUrl).toBe('postgres://db:5432/quire');
    expect(config.databasePreparedStatements).toBe(false);
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ databaseReadUrls: [], databasePreparedStatements: true });
    expect(defaults.databaseDirectUrl).toBeUndefined();
  });

  it.each([
    [{ DATABASE_READ_URLS: 'postgres://r1/quire,mysql://r2/quire' }, 'DATABASE_READ_URLS'],
    [{ DATABASE_DIRECT_URL: 'http://db/quire' }, 'DATABASE_DIRECT_URL'],
    [{ DATABASE_PREPARED_STATEMENTS: 'sometimes' }, 'DATABASE_PREPARED_STATEMENTS'],
  ])('refuses %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });
});
