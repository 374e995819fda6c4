import { loadConfig } from '../../src/config/app-config';

describe('configuration', () => {
  it('applies defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databasePoolSize: 10,
      logLevel: 'info',
      migrationsRun: true,
      bodyLimit: '1mb',
      publicUrl: 'http://localhost:3000',
    });
    expect(config.appUrl).toBeUndefined(); // no web application: urls.app names the API resource
    expect(config.bootstrap).toBeUndefined();
  });

  it('parses numbers and booleans, trims trailing slashes, treats empty values as unset', () => {
    const config = loadConfig({ PORT: '8080', MIGRATIONS_RUN: 'false', PUBLIC_URL: 'https://api.example.com/', APP_URL: '', DATABASE_URL: '' });
    expect(config).toMatchObject({ port: 8080, migrationsRun: false, publicUrl: 'https://api.example.com' });
    expect(config.appUrl).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ MIGRATIONS_RUN: 'maybe' }, 'MIGRATIONS_RUN'],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    [{ BOOTSTRAP_ORG_TITLE: 'Acme' }, 'BOOTSTRAP_ADMIN_EMAIL'],
    [{ BOOTSTRAP_ORG_TITLE: 'Acme', BOOTSTRAP_ADMIN_EMAIL: 'not-an-email' }, 'BOOTSTRAP_ADMIN_EMAIL'],
    [{ BOOTSTRAP_ORG_TITLE: 'Acme', BOOTSTRAP_ADMIN_EMAIL: 'a@b.test', BOOTSTRAP_ADMIN_TOKEN: 'short' }, 'BOOTSTRAP_ADMIN_TOKEN'],
  ])('refuses %j with one line naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid environment variable ${variable}: [^\\n]+$`));
  });

  it('names the type before the range, shows the value, and never shows a secret', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow('Invalid environment variable PORT: must be an integer number (got "abc")');
    expect(() => loadConfig({ PORT: '70000' })).toThrow('Invalid environment variable PORT: must not be greater than 65535 (got "70000")');
    const secret = 'sekret-but-short';
    expect(() => loadConfig({ BOOTSTRAP_ORG_TITLE: 'Acme', BOOTSTRAP_ADMIN_EMAIL: 'a@b.test', BOOTSTRAP_ADMIN_TOKEN: secret })).toThrow(
      /^Invalid environment variable BOOTSTRAP_ADMIN_TOKEN: [^(]+$/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:sekret@db/x' })).toThrow(/^(?!.*sekret)/);
  });

  it('builds urls.app in the web application when APP_URL names one, else in the API (a link that answers)', () => {
    const alone = loadConfig({ PUBLIC_URL: 'https://api.example.com' });
    expect(alone.appLink('/o/abc', '/v1/orgs/abc')).toBe('https://api.example.com/v1/orgs/abc');
    const withApp = loadConfig({ PUBLIC_URL: 'https://api.example.com', APP_URL: 'https://docs.example.com/' });
    expect(withApp.appLink('/o/abc', '/v1/orgs/abc')).toBe('https://docs.example.com/o/abc');
  });

  it('reads the bootstrap variables together', () => {
    const token = 'x'.repeat(40);
    const config = loadConfig({ BOOTSTRAP_ORG_TITLE: 'Acme', BOOTSTRAP_ADMIN_EMAIL: 'admin@acme.test', BOOTSTRAP_ADMIN_TOKEN: token });
    expect(config.bootstrap).toEqual({ orgTitle: 'Acme', email: 'admin@acme.test', name: undefined, token });
  });
});
