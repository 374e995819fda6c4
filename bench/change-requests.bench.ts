/* Change-request benchmarks: merge of a 20-page change in a 10-page vs a 10,000-page space (the
 * ratio is the figure: merge cost should not grow with the space), a batch of 50 page inserts, and
 * the PDF of a 100-page change request.
 * Standalone: `npm run -s build && node -r @swc-node/register bench/change-requests.bench.ts`. Uses
 * DATABASE_URL (default: the machine's PostgreSQL) to create and drop its own fresh database. */
import { DataSource } from 'typeorm';
import { median, ms, pageBody, startChangeRequestBench } from './change-request-fixture';
import { BenchRecorder, tablesFromMarkdown } from './harness';

const ROUNDS = Number(process.env.BENCH_CR_ROUNDS ?? 5);
const LARGE = Number(process.env.BENCH_CR_LARGE ?? 10_000);
const body = (n: number) => pageBody(n, true);

/** The report's record (bench/harness.ts) and its merge-cost points. */
const recorder = new BenchRecorder('change-requests', 'Change requests: merge cost against space size, batch inserts, PDF', {
  BENCH_CR_ROUNDS: ROUNDS,
  BENCH_CR_LARGE: LARGE,
});
const merges: { series: string; x: number; y: number }[] = [];

async function main(): Promise<void> {
  const bench = await startChangeRequestBench('cr');
  const { app, base, headers, call, newSpace } = bench;
  const lines: string[] = [];
  try {
    // 1. Merge of a change request touching 20 pages, in a 10-page and in a large space.
    const dataSource = app.get(DataSource);
    // Rows stored under the merged revision's own id (a layer stores what changed, a full revision everything).
    const stored: Record<number, number[]> = {};
    const mergeCost = async (size: number): Promise<number> => {
      const space = await newSpace(`Merge ${size}`);
      await bench.seed(space.id, size, { links: true });
      const times: number[] = [];
      stored[size] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const cr = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: `round ${round}` });
        const url = `/v1/spaces/${space.id}/change-requests/${cr.json.id as string}`;
        // 20 changed pages: up to 10 edits of existing pages, the rest inserted.
        const edits = Array.from({ length: Math.min(10, size) }, (_, i) => ({
          operation: 'update_page',
          page: `p${i}`,
          document: { markdown: `${body(i)}\nRound ${round} edit.` },
        }));
        const inserts = Array.from({ length: 20 - edits.length }, (_, i) => ({
          operation: 'insert_page',
          title: `Round ${round} new ${i}`,
          document: { markdown: `New page ${i} of round ${round}.` },
        }));
        await call('POST', `${url}/content`, { changes: [...edits, ...inserts] });
        times.push((await call('POST', `${url}/merge`)).ms);
        const [{ rows }]: { rows: number }[] = await dataSource.query(
          `SELECT (SELECT count(*) FROM revision_page_rows p WHERE p.revision_id = s.revision_id) +
                  (SELECT count(*) FROM revision_link_rows l WHERE l.revision_id = s.revision_id) AS rows
             FROM spaces s WHERE s.id = $1`,
          [space.id],
        );
        stored[size].push(Number(rows));
      }
      return median(times);
    };
    const small = await mergeCost(10);
    const large = await mergeCost(LARGE);
    merges.push({ series: 'merge, 20 changed pages (median)', x: 10, y: ms(small) }, { series: 'merge, 20 changed pages (median)', x: LARGE, y: ms(large) });
    lines.push(`| merge, 20 changed pages, 10-page space (median of ${ROUNDS}) | **${ms(small)} ms** |`);
    lines.push(`| merge, 20 changed pages, ${LARGE}-page space (median of ${ROUNDS}) | **${ms(large)} ms** |`);
    lines.push(`| ratio large / small (goal ≤ 1.5) | **${(large / small).toFixed(2)}** |`);
    lines.push(`| page and link rows stored per merge, 10-page / ${LARGE}-page space (each round) | ${stored[10].join(', ')} / ${stored[LARGE].join(', ')} |`);
    process.stderr.write(`${lines.join('\n')}\n`);

    // 2. A batch of 50 page inserts into a change request.
    const batchSpace = await newSpace('Batch');
    const batchTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cr = await call('POST', `/v1/spaces/${batchSpace.id}/change-requests`, {});
      const changes = Array.from({ length: 50 }, (_, i) => ({ operation: 'insert_page', title: `Batch ${round} page ${i}`, document: { markdown: body(i) } }));
      batchTimes.push((await call('POST', `/v1/spaces/${batchSpace.id}/change-requests/${cr.json.id as string}/content`, { changes })).ms);
    }
    lines.push(`| batch of 50 page inserts (median of ${ROUNDS}) | **${ms(median(batchTimes))} ms** |`);

    // 3. PDF of a 100-page change request.
    const pdfSpace = await newSpace('PDF');
    const cr = await call('POST', `/v1/spaces/${pdfSpace.id}/change-requests`, {});
    const crUrl = `/v1/spaces/${pdfSpace.id}/change-requests/${cr.json.id as string}`;
    for (let batch = 0; batch < 2; batch++) {
      const changes = Array.from({ length: 50 }, (_, i) => ({
        operation: 'insert_page',
        title: `Chapter ${batch * 50 + i}`,
        document: { markdown: `## Section\n\n${body(i)}\n\n- one\n- two\n\n\`\`\`\ncode ${i}\n\`\`\`\n` },
      }));
      await call('POST', `${crUrl}/content`, { changes });
    }
    // Rendered by a job: time from GET …/pdf to the bytes (the url waits for the job, following any 202),
    // a fresh render each round (the previous round's render deleted), then a fetch of the stored render.
    const fetchPdf = async (path: string): Promise<Buffer> => {
      for (;;) {
        const res = await fetch(`${base}${path}`, { headers });
        const bytes = Buffer.from(await res.arrayBuffer());
        if (res.status === 202) {
          await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)));
          continue;
        }
        if (res.status !== 200 || bytes.subarray(0, 5).toString() !== '%PDF-') throw new Error(`PDF answered ${res.status}`);
        return bytes;
      }
    };
    const pdfTimes: number[] = [];
    const storedTimes: number[] = [];
    let size = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await dataSource.query(`DELETE FROM change_request_pdf_renders WHERE change_request_id = $1`, [cr.json.id]);
      const started = performance.now();
      const link = await call('GET', `${crUrl}/pdf`);
      const pdfUrl = new URL(link.json.url as string);
      size = (await fetchPdf(`${pdfUrl.pathname}${pdfUrl.search}`)).length;
      pdfTimes.push(performance.now() - started);
      const again = performance.now();
      await fetchPdf(`${pdfUrl.pathname}${pdfUrl.search}`);
      storedTimes.push(performance.now() - again);
    }
    lines.push(
      `| PDF of a 100-page change request (GET pdf → bytes, rendered by the job, ${(size / 1024).toFixed(0)} KB, median of ${ROUNDS}) | **${ms(median(pdfTimes))} ms** |`,
    );
    lines.push(`| the same url fetched again (stored render, median of ${ROUNDS}) | **${ms(median(storedTimes))} ms** |`);

    const printed = `\nChange-request benchmarks (loopback, one process, sequential)\n\n| measurement | result |\n|---|---|\n${lines.join('\n')}\n`;
    process.stdout.write(printed);
    for (const table of tablesFromMarkdown(printed)) recorder.table(table.title, table.columns, table.rows);
    recorder.chart({ title: 'Merge cost against space size', kind: 'size', x: 'pages in the space', y: 'milliseconds', points: merges });
    await recorder.save();
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
