import { join } from 'node:path';
import { DomainError } from '../../src/common/errors/domain-error';
import { WorkerPool, WorkerAnswer } from '../../src/common/workers/worker-pool';
import { ERROR_STATUS } from '../../src/error-codes';
import { extractPage } from '../../src/modules/content/import/html-extract';
import { derivedOf, markdownLinks, splitSections } from '../../src/modules/content/markdown/markdown';
import { markdownToDocument } from '../../src/modules/content/document';
import { pageDocument } from '../../src/modules/content/markdown/page-document';
import { convertImportedPage } from '../../src/modules/content/text-work/text.worker';
import {
  convertPageOffLoop,
  extractPageOffLoop,
  prepareDocuments,
  prepareMarkdown,
  TEXT_WORKER_MIN_LENGTH,
  textTimeLimitError,
} from '../../src/modules/content/text-work/text-workers';

type Job = { ms: number; invalid?: boolean };

describe('WorkerPool (common/workers)', () => {
  const pool = new WorkerPool<Job, WorkerAnswer & { ms?: number }>({
    name: 'busy',
    file: join(__dirname, '../fixtures/workers/busy.worker.ts'),
    size: 1,
    timeoutMs: 2000,
    heapMb: 128,
    timeoutError: (job) => new Error(`took longer than 2000 ms (${job.ms})`),
    invalidError: (message) => new TypeError(message),
    describe: (job) => `${job.ms} ms`,
  });
  // The worker started before the timed jobs: the time limit counts from a job's hand-over, and a new worker's start
  // (compiling its TypeScript file) took over 2 s once on a loaded machine.
  beforeAll(() => pool.run({ ms: 1 }), 30_000);
  afterAll(() => pool.close());

  it('answers jobs in order on a bounded pool', async () => {
    const answers = await Promise.all([pool.run({ ms: 5 }), pool.run({ ms: 10 })]);
    expect(answers.map((answer) => answer.ms)).toEqual([5, 10]);
    expect(pool.stats()).toEqual({ workers: 1, busy: 0, waiting: 0 });
  });

  it('refuses a job past its time limit, replaces the worker, and runs the next job', async () => {
    const slow = pool.run({ ms: 20_000 });
    const next = pool.run({ ms: 1 });
    const started = Date.now();
    await expect(slow).rejects.toThrow('took longer than 2000 ms (20000)');
    expect(Date.now() - started).toBeLessThan(6000);
    await expect(next).resolves.toMatchObject({ ok: true, ms: 1 });
  });

  it("refuses an invalid job with the pool's error", async () => {
    await expect(pool.run({ ms: 0, invalid: true })).rejects.toBeInstanceOf(TypeError);
  });
});

describe('the text pool (content/text-work)', () => {
  it("derives a large body's links, sections and document in a worker, as the event loop would", async () => {
    const body = `# Intro\n\n${'See [a](/pages/p1) and ![i](/files/f1). '.repeat(1000)}\n\n## Setup\n\nText [b](https://x.test).\n`;
    expect(body.length).toBeGreaterThanOrEqual(TEXT_WORKER_MIN_LENGTH);
    const onLoop = { links: markdownLinks(body), sections: splitSections(body), document: JSON.stringify(markdownToDocument(body)) };
    expect(derivedOf(body)).toBeUndefined();
    await prepareMarkdown([body, 'small [c](/d)']);
    expect(derivedOf(body)).toEqual(onLoop);
    expect(derivedOf('small [c](/d)')).toBeUndefined();
    expect(markdownLinks(body)).toEqual(onLoop.links);
  });

  it('parses a large body a read answers as a document in a worker, as the event loop would, and the presenter takes it', async () => {
    const body = `# Guide\n\n{% hint style="info" %}\nNote\n{% endhint %}\n\n${'A **bold** [link](/pages/p1). '.repeat(1200)}\n`;
    expect(body.length).toBeGreaterThanOrEqual(TEXT_WORKER_MIN_LENGTH);
    await prepareDocuments([body, 'small *body*', null]);
    const presented = pageDocument(body);
    expect(presented).toEqual(markdownToDocument(body));
    // The one the worker made, not a second parse on the loop.
    expect(pageDocument(body)).toBe(presented);
    expect(pageDocument('small *body*')).not.toBe(pageDocument('small *body*'));
  });

  it('extracts and converts an imported page in a worker, as the event loop would', async () => {
    const html = `<html><head><title>T</title></head><body><nav><a href="/n">n</a></nav><main><h1>Title</h1><p>Go <a href="/guide/b">b</a> <img src="/i.png" alt="i"></p></main></body></html>`;
    const url = 'https://docs.test/guide/a';
    expect(await extractPageOffLoop(html, url)).toEqual(extractPage(html, url));
    const map = {
      pages: [['https://docs.test/guide/b', 'page-b']] as [string, string][],
      files: [['https://docs.test/i.png', 'file-i']] as [string, string][],
      scope: { origin: 'https://docs.test', root: '/guide', prefix: '/guide/' },
    };
    const main = extractPage(html, url).mainHtml;
    const markdown = await convertPageOffLoop(main, map);
    expect(markdown).toEqual(convertImportedPage(main, map));
    expect(markdown).toContain('/pages/page-b');
    expect(markdown).toContain('/files/file-i');
  });

  it('refuses a page nested too deep, and names its time limit with a 422', async () => {
    await expect(extractPageOffLoop(`${'<div>'.repeat(600)}x`, 'https://docs.test/')).rejects.toThrow('deeper than 512');
    const error = textTimeLimitError('markdown');
    expect(error).toBeInstanceOf(DomainError);
    expect(error.message).toBe('markdown: reading the text took longer than the 15 s limit');
    expect(ERROR_STATUS[(error as DomainError).code as keyof typeof ERROR_STATUS]).toBe(422);
  });
});
