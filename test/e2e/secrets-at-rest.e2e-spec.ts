import { createSite } from '../support/site-builders';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EncryptSecrets1800000120000 } from '../../migrations/1800000120000-encrypt-secrets';
import { freePort } from '../../src/common/free-port';
import { configureSecretCipher, SecretCipher } from '../../src/common/crypto/secret-cipher';
import { createDataSource } from '../../src/database/data-source';
import { loadConfig } from '../../src/config/app-config';
import { createOrganization, OrgFixture } from '../support/builders';
import { createTestDatabase, TestDatabase } from '../support/database';
import { publishScript } from '../support/integration-fixtures';
import { runCli } from '../support/run-cli';
import { createTestApp, TestApp } from '../support/test-app';

/** Answers its public endpoint with the secrets its environment carries. */
const ECHO = `
export default {
  async fetch(request) {
    const form = await request.formData();
    const env = JSON.parse(form.get('environment'));
    return new Response(JSON.stringify({ secrets: env.secrets, signingSecret: env.signingSecret }), { headers: { 'content-type': 'application/json' } });
  },
};`;

const MANIFEST_SECRET = `sk_manifest_${randomBytes(8).toString('hex')}`;

/**
 * Secrets at rest on a database of their own (its own encryption key): the rows hold ciphertext, the
 * script and the visitor claims still get plaintext, a rotation re-encrypts every row, a wrong key
 * stops the start, the migration encrypts plaintext rows and its `down` decrypts them.
 */
describe('secrets encrypted at rest', () => {
  let db: TestDatabase;
  const key1 = randomBytes(32).toString('base64');
  const key2 = randomBytes(32).toString('hex');
  const keyId = (key: string) => new SecretCipher(key.length === 64 ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64')).keyId;
  let endpoint: string;
  let port: number;
  let org: OrgFixture;
  let name: string;

  const start = async (env: Record<string, string>): Promise<TestApp> => {
    const t = await createTestApp({ PUBLIC_URL: endpoint, OUTBOUND_ALLOW_PRIVATE: 'true', ...env }, undefined, () => db.url, port);
    return t;
  };
  const rawRows = async (t: TestApp) => ({
    integrations: (await t.dataSource.query(`SELECT secrets::text AS secrets, signing_secret FROM integrations`)) as {
      secrets: string;
      signing_secret: string;
    }[],
    serverSecrets: (await t.dataSource.query(`SELECT name, value FROM server_secrets`)) as { name: string; value: string }[],
  });
  const echo = async () => {
    const res = await fetch(`${endpoint}/v1/integrations/${name}/public/`);
    expect(res.status).toBe(200);
    return (await res.json()) as { secrets: Record<string, string>; signingSecret: string };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    port = await freePort();
    endpoint = `http://127.0.0.1:${port}`;
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
    // Later files of this worker start with the run's own key again.
    configureSecretCipher(loadConfig());
  });

  it('keeps no plaintext in the rows; the script and the visitor claims still get their secrets', async () => {
    const t = await start({ ENCRYPTION_KEY: key1 });
    try {
      org = await createOrganization(t);
      name = (await publishScript(t, org.admin, org.id, `secret-echo-${Date.now()}`, ECHO, { secrets: { apiKey: MANIFEST_SECRET } })).name;
      await t.http
        .post(`/v1/orgs/${org.id}/ping`)
        .set(...org.admin.auth)
        .expect(200);
      const seen = await echo();
      expect(seen.secrets).toEqual({ apiKey: MANIFEST_SECRET });
      expect(seen.signingSecret.length).toBeGreaterThanOrEqual(32);

      const raw = await rawRows(t);
      expect(raw.integrations).toHaveLength(1);
      const [row] = raw.integrations;
      expect(row.secrets).not.toContain(MANIFEST_SECRET);
      expect(row.secrets).toMatch(new RegExp(`^"enc:v1:${keyId(key1)}:`));
      expect(row.signing_secret).not.toContain(seen.signingSecret);
      expect(row.signing_secret).toMatch(new RegExp(`^enc:v1:${keyId(key1)}:`));
      expect(raw.serverSecrets.map((s) => s.name).sort()).toEqual(['encryption-key-check', 'visitor-claims-signing-key']);
      for (const secret of raw.serverSecrets) expect(secret.value).toMatch(new RegExp(`^enc:v1:${keyId(key1)}:`));
      // A site's publishing-auth key (visitor JWTs) is one of them.
      const site = await createSite(t, org);
      const auth = await t.http
        .get(`/v1/orgs/${org.id}/sites/${site.id}/publishing/auth`)
        .set(...org.admin.auth)
        .expect(200);
      const [publishing] = await t.dataSource.query(`SELECT private_key FROM site_publishing_auth WHERE site_id = $1`, [site.id]);
      expect(publishing.private_key).not.toContain(auth.body.privateKey);
      expect(publishing.private_key).toMatch(new RegExp(`^enc:v1:${keyId(key1)}:`));
      // Never in an API answer either.
      const integration = await t.http.get(`/v1/integrations/${name}`).set(...org.admin.auth);
      expect(JSON.stringify(integration.body)).not.toContain(MANIFEST_SECRET);
      expect(JSON.stringify(integration.body)).not.toContain(seen.signingSecret);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('secrets:rotate re-encrypts every row under the new key; the server then works on the new key alone', async () => {
    const cli = (args: string[], env: Record<string, string>) => runCli(args, { DATABASE_URL: db.url, LOG_LEVEL: 'silent', ...env });
    // Without the old key the rotation cannot open the rows, and changes none.
    const blind = await cli(['secrets:rotate'], { ENCRYPTION_KEY: key2 });
    expect(blind.code).toBe(1);
    expect(blind.stderr).toMatch(new RegExp(`encrypted with key ${keyId(key1)}, which this server does not have`));
    expect(blind.stderr).not.toContain(key1);

    const rotated = await cli(['secrets:rotate'], { ENCRYPTION_KEY: key2, ENCRYPTION_PREVIOUS_KEYS: key1 });
    expect(rotated).toMatchObject({ code: 0 });
    expect(JSON.parse(rotated.stdout)).toEqual({
      keyId: keyId(key2),
      rotated: { 'integrations.secrets': 1, 'integrations.signing_secret': 1, 'server_secrets.value': 2, 'site_publishing_auth.private_key': 1 },
    });
    // Again: nothing left to do.
    const again = await cli(['secrets:rotate'], { ENCRYPTION_KEY: key2, ENCRYPTION_PREVIOUS_KEYS: key1 });
    expect(JSON.parse(again.stdout).rotated).toEqual({
      'integrations.secrets': 0,
      'integrations.signing_secret': 0,
      'server_secrets.value': 0,
      'site_publishing_auth.private_key': 0,
    });

    const t = await start({ ENCRYPTION_KEY: key2 });
    try {
      const raw = await rawRows(t);
      for (const value of [raw.integrations[0].secrets.replace(/^"/, ''), raw.integrations[0].signing_secret, ...raw.serverSecrets.map((s) => s.value)]) {
        expect(value).toMatch(new RegExp(`^enc:v1:${keyId(key2)}:`));
      }
      expect((await echo()).secrets).toEqual({ apiKey: MANIFEST_SECRET });
      await t.http
        .post(`/v1/orgs/${org.id}/ping`)
        .set(...org.admin.auth)
        .expect(200);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a wrong key stops the start with the key ids (never a key), the server and the CLI alike', async () => {
    await expect(start({ ENCRYPTION_KEY: key1 })).rejects.toThrow(
      new RegExp(`Cannot start: the encryption key does not open the secrets in the database .*key ${keyId(key2)}.*ENCRYPTION_KEY is ${keyId(key1)}`),
    );
    const cli = await runCli(['token:create', '--email', 'nobody@example.com'], { DATABASE_URL: db.url, ENCRYPTION_KEY: key1 });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/does not open the secrets in the database/);
    expect(cli.stderr).not.toContain(key1);
    expect(cli.stderr).not.toContain(key2);
    const malformed = await runCli(['token:create', '--email', 'nobody@example.com'], { DATABASE_URL: db.url, ENCRYPTION_KEY: 'short' });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/Invalid environment variable ENCRYPTION_KEY: must be 32 random bytes/);
    expect(malformed.stderr).not.toContain('short');
  }, 60_000);

  it('the migration decrypts on down and encrypts plaintext rows on up', async () => {
    configureSecretCipher({ dataDir: '/nonexistent', encryption: { key: key2, previousKeys: [] } });
    const dataSource: DataSource = await createDataSource(db.url, 1).initialize();
    const runner = dataSource.createQueryRunner();
    try {
      const migration = new EncryptSecrets1800000120000();
      await migration.down(runner);
      const [plain] = await runner.query(`SELECT secrets, signing_secret FROM integrations`);
      expect(plain.secrets).toEqual({ apiKey: MANIFEST_SECRET });
      expect(plain.signing_secret).not.toMatch(/^enc:/);
      const values = (await runner.query(`SELECT name, value FROM server_secrets`)) as { name: string; value: string }[];
      expect(values.map((v) => v.name)).toEqual(['visitor-claims-signing-key']);
      expect(values[0].value).not.toMatch(/^enc:/);

      await migration.up(runner);
      const [encrypted] = await runner.query(`SELECT secrets::text AS secrets, signing_secret FROM integrations`);
      expect(encrypted.secrets).not.toContain(MANIFEST_SECRET);
      expect(encrypted.signing_secret).toMatch(new RegExp(`^enc:v1:${keyId(key2)}:`));
      expect(encrypted.signing_secret).not.toContain(plain.signing_secret);
      const [claims] = await runner.query(`SELECT value FROM server_secrets WHERE name = 'visitor-claims-signing-key'`);
      expect(claims.value).toMatch(new RegExp(`^enc:v1:${keyId(key2)}:`));
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
    // The server starts on the migrated rows and still hands the script its secrets.
    const t = await start({ ENCRYPTION_KEY: key2 });
    try {
      expect((await echo()).secrets).toEqual({ apiKey: MANIFEST_SECRET });
    } finally {
      await t.close();
    }
  }, 60_000);
});
