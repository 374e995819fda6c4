import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Libraries that only a few routes or jobs use are loaded on first use (decision 0072): every server start and
 * every e2e test file would otherwise pay their load. Checked in a plain node process, where `require.cache`
 * lists every module the app module pulled in (jest's registry does not expose it).
 */
const LAZY = ['miniflare', 'pdfkit', 'fontkit', 'yaml', 'cheerio', 'undici', 'jose'];

describe('libraries loaded on first use', () => {
  it('are not loaded with the app module', () => {
    const root = join(__dirname, '../..');
    const script = `
      require('./src/app.module');
      const loaded = new Set();
      for (const file of Object.keys(require.cache)) {
        const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file.slice(file.lastIndexOf('node_modules/')));
        if (match) loaded.add(match[1]);
      }
      process.stdout.write(JSON.stringify([...loaded]));`;
    const output = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const loaded = JSON.parse(output) as string[];
    expect(loaded).toContain('@nestjs/core'); // the check sees what the app module loads
    expect(LAZY.filter((name) => loaded.includes(name))).toEqual([]);
  });

  it('the application itself is not loaded before main.ts has checked the settings, the port and the database', () => {
    const root = join(__dirname, '../..');
    // A setting refused by the first check: the process exits with its one line; the preload reports what it loaded.
    const report = `process.on('exit', () => process.stdout.write(JSON.stringify(Object.keys(require.cache).filter((f) => /node_modules\\/(@nestjs\\/core|typeorm)\\//.test(f)).length)));`;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', `${report} require('./src/main.ts');`], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PORT: 'abc', DATABASE_URL: '' },
      timeout: 60_000,
    });
    expect(run.stderr.trim()).toBe('Invalid environment variable PORT: must be an integer number (got "abc")');
    expect(Number(run.stdout)).toBe(0);
  });
});
