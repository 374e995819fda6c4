import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { BatchedDestination } from '../../src/common/logging/logger';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BatchedDestination (the log batcher of stdout)', () => {
  let dir: string;
  let file: string;
  let out: ReturnType<typeof pino.destination>;
  let writes: number[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quire-log-'));
    file = join(dir, 'out.log');
    out = pino.destination({ dest: file, sync: false, minLength: 4096, mkdir: true });
    writes = [];
    out.on('write', (bytes: number) => writes.push(bytes));
  });
  afterEach(() => {
    out.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a partial batch about flushMs after its lines, not before', async () => {
    const destination = new BatchedDestination(out, 50);
    destination.write('{"msg":"one"}\n');
    destination.write('{"msg":"two"}\n');
    expect(writes).toEqual([]);
    for (const started = Date.now(); writes.length === 0 && Date.now() - started < 5000;) await sleep(10); // 50 ms, or later on a loaded machine
    await sleep(100);
    expect(readFileSync(file, 'utf8')).toBe('{"msg":"one"}\n{"msg":"two"}\n');
    expect(writes).toEqual([28]);
  });

  it('makes no write at all while idle (no zero-byte flushes)', async () => {
    const destination = new BatchedDestination(out, 20);
    destination.write('{"msg":"one"}\n');
    // The batch's own write first (20 ms, later on a loaded machine), then nothing more.
    for (const started = Date.now(); writes.length === 0 && Date.now() - started < 5000;) await sleep(10);
    const after = writes.length;
    expect(after).toBe(1);
    await sleep(200);
    expect(writes.length).toBe(after);
    expect(writes.every((bytes) => bytes > 0)).toBe(true);
  });

  it('still writes the rest of a batch that a write in flight held back', async () => {
    const destination = new BatchedDestination(out, 20);
    const big = `${JSON.stringify({ msg: 'x'.repeat(5000) })}\n`;
    destination.write(big); // over minLength: a write starts at once
    destination.write('{"msg":"tail"}\n'); // waits behind it, under minLength
    await sleep(300);
    expect(readFileSync(file, 'utf8')).toBe(`${big}{"msg":"tail"}\n`);
  });

  it('is what pino writes through: a logger line reaches the file', async () => {
    const logger = pino({ base: null, timestamp: false }, new BatchedDestination(out, 20));
    logger.info('hello');
    await sleep(300);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ level: 30, msg: 'hello' });
  });
});
