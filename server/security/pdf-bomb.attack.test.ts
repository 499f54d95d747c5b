// Attack: a PDF decompression bomb. 2 MiB of file whose page content inflates to 2 GiB, previewed through
// GET /api/workspace/preview. The worker's heap limit does not count the ArrayBuffers pdf.js inflates into: left
// to its 15 s deadline, the process's resident set grows past 3.8 GiB. The preview must end it within its memory
// budget, say in plain words that the PDF was too large to read, give the memory back before it answers (so a
// second bomb starts from where the first did), and read the next ordinary PDF.
// The worker exists only in the compiled build, so the project is compiled into a private folder and its server
// runs in this process, where the resident set is sampled.
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, compileProject } from '../testing/compile.js';
import type * as Harness from '../testing/harness.js';
import type * as Pdf from '../workspace/pdf.js';
import { buildPdf, flateBombPdf, textPage } from '../workspace/testing/pdf.js';

const MIB = 1024 * 1024;
const BOMB_INFLATED_MIB = 2048;
const BOMBS = 2;
/** What the process may pass the budget by: the watchdog's sampling interval at pdf.js's inflate rate
 *  (5-14 MiB measured), the main thread's timer running late on a loaded machine, and this test's own noise. */
const MARGIN_MIB = 128;
/** What may still be resident when a bomb's answer arrives: allocator slack and this test's own noise (-4 to 20 MiB
 *  measured), against the 512 MiB an ended worker still held when the answer did not wait for its thread. */
const LEFT_AFTER_ANSWER_MIB = 128;
const SAMPLE_MS = 2;
const SETUP_TIMEOUT_MS = BUILD_TIMEOUT_MS + 60_000;
const TEST_TIMEOUT_MS = 120_000;

let outDir: string;
let compiled: typeof Pdf;
let srv: Harness.TestServer;
let session: string;

beforeAll(async () => {
  outDir = compileProject('pdf-bomb-');
  compiled = (await import(pathToFileURL(path.join(outDir, 'server', 'workspace', 'pdf.js')).href)) as typeof Pdf;
  const harness = (await import(pathToFileURL(path.join(outDir, 'server', 'testing', 'harness.js')).href)) as typeof Harness;
  srv = await harness.startTestServer();
  session = await srv.newSession();
  await fs.writeFile(path.join(srv.workspace, 'bomb.pdf'), await flateBombPdf(BOMB_INFLATED_MIB));
  await fs.writeFile(path.join(srv.workspace, 'small.pdf'), buildPdf({ pages: [textPage('After the bomb')], title: 'Ordinary' }));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await srv?.stop();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

async function preview(name: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await srv.api(`/api/workspace/preview?${new URLSearchParams({ session_id: session, path: name })}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The highest resident set this process reached while `work` ran. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), SAMPLE_MS);
  try {
    const result = await work();
    return { peak: Math.max(peak, process.memoryUsage.rss()), result };
  } finally {
    clearInterval(timer);
  }
}

it(
  'ends a PDF that inflates past its memory budget with a note, gives the memory back, and previews the next PDF',
  async () => {
    const limitMiB = compiled.PDF_WORKER_MAX_MEMORY_MB + MARGIN_MIB;
    const baseline = process.memoryUsage.rss();
    const growths: number[] = [];
    const answeredAt: number[] = [];
    for (let i = 0; i < BOMBS; i++) {
      const { peak, result } = await peakRss(() => preview('bomb.pdf'));
      // The answer comes once the ended worker's memory is back: the next document starts from here.
      answeredAt.push(Math.round((process.memoryUsage.rss() - baseline) / MIB));
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ kind: 'pdf', note: 'This PDF is too large to read (it needed over 512 MiB of memory): no text preview.' });
      expect(result.body.note).toBe(compiled.PDF_TOO_MUCH_MEMORY);
      // Measured from before the first bomb: memory an ended worker kept would count against the second.
      growths.push(Math.round((peak - baseline) / MIB));
    }
    const budget = compiled.PDF_WORKER_MAX_MEMORY_MB;
    console.log(`resident set growth while ${BOMBS} bombs were previewed: ${growths.join(', ')} MiB (budget ${budget} MiB)`);
    console.log(`resident set growth when each answer arrived: ${answeredAt.join(', ')} MiB`);
    for (const growth of growths) expect(growth).toBeLessThan(limitMiB);
    for (const left of answeredAt) expect(left).toBeLessThan(LEFT_AFTER_ANSWER_MIB);
    const next = await preview('small.pdf');
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ kind: 'pdf', pages: 1, title: 'Ordinary', text: 'After the bomb' });
  },
  TEST_TIMEOUT_MS,
);
