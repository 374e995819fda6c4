import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defer, firstValueFrom } from 'rxjs';
import { ScopedStorage } from '../../src/common/async/scoped-storage';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ScopedStorage', () => {
  it('keeps each scope its store across awaits, concurrent scopes included, and none outside', async () => {
    const storage = new ScopedStorage<{ id: number }>();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = storage.run({ id: 1 }, async () => {
      await gate;
      await tick();
      return storage.getStore()?.id;
    });
    const second = storage.run({ id: 2 }, async () => {
      await tick();
      return storage.getStore()?.id;
    });
    expect(await second).toBe(2);
    open();
    expect(await first).toBe(1);
    expect(storage.getStore()).toBeUndefined();
  });

  it('closes the scope of a run whose work throws, or whose promise rejects', async () => {
    const storage = new ScopedStorage<string>();
    expect(() =>
      storage.run('x', () => {
        throw new Error('at once');
      }),
    ).toThrow('at once');
    await expect(storage.run('y', () => Promise.reject(new Error('later')))).rejects.toThrow('later');
    expect(await storage.run('z', async () => storage.getStore())).toBe('z');
  });

  it('runs an observed source in the scope', async () => {
    const storage = new ScopedStorage<string>();
    const seen = firstValueFrom(storage.observe('request', () => defer(async () => (await tick(), storage.getStore()))));
    expect(await seen).toBe('request');
  });

  // In a process of its own: jest's worker keeps async hooks on for its own use.
  it('turns the process-wide async hook off once the last scope closes, after run and after observe', () => {
    const script = `
      const { ScopedStorage } = require(${JSON.stringify(join(__dirname, '../../src/common/async/scoped-storage'))});
      const { defer, lastValueFrom } = require('rxjs');
      // While node's async hook is on, it tags every new promise with its async ids (own symbol properties).
      const hookOn = () => Object.getOwnPropertySymbols(new Promise(() => undefined)).length > 0;
      const tick = () => new Promise((resolve) => setImmediate(resolve));
      (async () => {
        const seen = [hookOn()];
        const storage = new ScopedStorage();
        let open;
        const gate = new Promise((resolve) => (open = resolve));
        const first = storage.run(1, async () => { seen.push(hookOn()); await gate; });
        await storage.run(2, async () => { await tick(); });
        await tick();
        seen.push(hookOn()); // the first scope still open
        open();
        await first;
        await tick();
        seen.push(hookOn());
        await lastValueFrom(storage.observe(3, () => defer(async () => { seen.push(hookOn()); await tick(); })));
        await tick();
        seen.push(hookOn());
        process.stdout.write(JSON.stringify(seen));
      })();
    `;
    const output = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: join(__dirname, '../..') }).toString();
    expect(JSON.parse(output)).toEqual([false, true, true, false, true, false]);
  });

  // One plain AsyncLocalStorage whose run() is reached by a request turns the hook on for good (decision 0068).
  it('is the only AsyncLocalStorage in src/', () => {
    const root = join(__dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const plain = files.filter((file) => !file.endsWith('scoped-storage.ts') && /new AsyncLocalStorage\b/.test(readFileSync(join(root, file), 'utf8')));
    expect(plain).toEqual([]);
  });
});
