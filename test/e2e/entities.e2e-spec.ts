import { rmSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource } from '../../src/database/data-source';
import { TEST_DATABASE_URL } from '../support/database';
import { runCli } from '../support/run-cli';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Modules register their own entities (TypeOrmModule.forFeature); the CLI's data source finds them by
 * file name. Both must see the same set, and it must match the migrated schema.
 */
describe('entities registered per module', () => {
  let t: TestApp;
  const url = () => process.env[TEST_DATABASE_URL] as string;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const names = (metadatas: { name: string }[]) => metadatas.map((m) => m.name).sort();

  it('the app (autoLoadEntities) and the CLI data source (file glob) know the same entities, one per entity file at least', async () => {
    const cli = await createDataSource(url(), 1).initialize();
    try {
      const app = names(t.dataSource.entityMetadatas);
      expect(app).toEqual(names(cli.entityMetadatas));
      const files = readdirSync(join(__dirname, '..', '..', 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.entity.ts'));
      expect(files.length).toBeGreaterThan(10);
      expect(app.length).toBeGreaterThanOrEqual(files.length);
      expect(app).toEqual(expect.arrayContaining(['User', 'Organization', 'Space', 'Team', 'Revision', 'SearchPage']));
    } finally {
      await cli.destroy();
    }
  });

  it('migration:generate (npm run cli) finds the entities and no difference from the migrations', async () => {
    const result = await runCli(['migration:generate', 'Probe'], { DATABASE_URL: url(), LOG_LEVEL: 'silent' });
    const written = /"file":"([^"]+)"/.exec(result.stdout)?.[1];
    if (written) rmSync(written, { force: true }); // a failing run must not leave a migration behind
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim())).toEqual({ file: null, note: 'no changes' });
  });
});
