import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from '../support/database';
import { ROOT } from '../support/server-process';
import { createTestApp, serverUrl, TestApp } from '../support/test-app';

/** The shell blocks of the README's "Your first hour", in order (its subsections excluded). */
function firstHourBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Your first hour');
  const end = readme.indexOf('\n#', start + 3);
  const section = readme.slice(start, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README's first hour", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = serverUrl(t);
  });
  afterAll(() => t.close());

  it('has the blocks a newcomer copies: bootstrap, a change request that writes two pages, a merge, reads', () => {
    const script = firstHourBlocks().join('\n');
    expect(firstHourBlocks().length).toBeGreaterThanOrEqual(3);
    for (const step of ['bootstrap', '/change-requests', 'insert_page', '/merge', 'format=markdown', 'format=document', '/search?'])
      expect(script).toContain(step);
  });

  it('runs as written against a server and reads back what it wrote', async () => {
    const run = await bash(firstHourBlocks().join('\n'), {
      QUIRE: base,
      DATABASE_URL: process.env[TEST_DATABASE_URL] as string,
      LOG_LEVEL: 'silent',
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const out = run.stdout;
    // The authoring call answered the change request, the merge a merge result.
    expect(out).toMatch(/"status": "open"/);
    expect(out).toMatch(/"result":"merge"/);
    // Both pages are in the tree, the link was resolved to the other page's path, the hint is a block.
    expect(out).toMatch(/ getting-started Getting started\n/);
    expect(out).toMatch(/ guide Guide\n/);
    expect(out).toContain('Install it, then read [the guide](guide).');
    expect(out).toContain('"paragraph"\n"hint"\n');
    expect(out).toMatch(/\nGetting started\n/);
  }, 120_000);
});
