import { Writable } from 'node:stream';

/** A log destination for `createTestApp(env, sink)` that keeps every JSON line it receives, for a test to read. */
export function captureLogs(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, sink };
}
