// The PDF worker exists only in the compiled build, so the project is compiled into a private folder (as the
// Office worker's test does) and its modules and server are exercised: the same summary as in-thread, an event
// loop left free while a LibreOffice report of 24 pages is read, and a hostile document ended at its deadline.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as inThread from './pdf.js';
import { buildPdf, libreOfficePdf, textPage } from './testing/pdf.js';
import { FIXTURES } from '../content/testing/pdf-tools.js';
import { SOFFICE } from '../office/testing/soffice.js';
import { BUILD_TIMEOUT_MS, compileProject } from '../testing/compile.js';
import type * as Harness from '../testing/harness.js';

// A full tsc pass plus a LibreOffice conversion, on a loaded shared machine.
const SETUP_TIMEOUT_MS = BUILD_TIMEOUT_MS + 120_000;
const READ_TIMEOUT_MS = 60_000;
/** The share of wall time the server's thread may be busy while a worker reads: in-thread it is about all of it. */
const MAX_MAIN_THREAD_SHARE = 0.5;
/** The deadline of the variant that meets the hostile document: far below the minutes that document takes, far
 *  above what a fresh worker needs to start and read a short one: ~0.2 s for a thread to load pdf.js, and under
 *  Node a child process to boot first (2.2-3.8 s measured at load 25 on 2 cores: docs/benchmarks.md). */
const SHORT_DEADLINE_MS = 10_000;
const REPORT_PAGES = 24;

// 50 pages sharing one 33 KB Flate stream of 300,000 empty text operators: about a second per page for pdf.js,
// minutes in all, and no text to stop at.
const hostile = buildPdf({ pages: Array(50).fill('BT /F1 12 Tf 72 700 Td () Tj ET\n'.repeat(300_000)), compress: true });
const small = buildPdf({ pages: [textPage('Hello from page one'), textPage('and page two')], title: 'Two pages' });

let outDir: string;
let compiled: typeof inThread;
let short: typeof inThread;
let srv: Harness.TestServer;
let session: string;
let report: Buffer;
let work: string;

beforeAll(async () => {
  if (!SOFFICE) throw new Error('soffice (LibreOffice) is needed to write the report PDF: apt-get install libreoffice-writer-nogui');
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-pdf-'));
  const paragraphs = Array.from({ length: 24 * 22 }, (_, i) => `Paragraph ${i + 1}: the quarterly figures for region ${i % 7} were reviewed and found in order.`);
  report = await libreOfficePdf(work, 'report', paragraphs.join('\n\n') + '\n');
  outDir = compileProject('pdf-worker-');
  const dir = path.join(outDir, 'server', 'workspace');
  expect(existsSync(path.join(dir, 'pdf-worker.js')), 'the worker compiled').toBe(true);
  compiled = (await import(pathToFileURL(path.join(dir, 'pdf.js')).href)) as typeof inThread;
  const source = readFileSync(path.join(dir, 'pdf.js'), 'utf8');
  const from = 'PDF_WORKER_TIMEOUT_MS = 15_000';
  expect(source).toContain(from);
  writeFileSync(path.join(dir, 'pdf-short.js'), source.replace(from, `PDF_WORKER_TIMEOUT_MS = ${SHORT_DEADLINE_MS}`));
  short = (await import(pathToFileURL(path.join(dir, 'pdf-short.js')).href)) as typeof inThread;
  const harness = (await import(pathToFileURL(path.join(outDir, 'server', 'testing', 'harness.js')).href)) as typeof Harness;
  srv = await harness.startTestServer();
  session = await srv.newSession();
  await fs.writeFile(path.join(srv.workspace, 'report.pdf'), report);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await srv?.stop();
  if (work) await fs.rm(work, { recursive: true, force: true });
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** The share of the wall time this thread's event loop was busy while `work` ran. */
async function busyShare<T>(work: () => Promise<T>): Promise<{ share: number; result: T }> {
  const start = performance.eventLoopUtilization();
  const result = await work();
  return { share: performance.eventLoopUtilization(start).utilization, result };
}

describe('PDF previews in a worker (compiled build: a thread in a child process)', () => {
  it('reads the same pages, title and text as in-thread, and the same note for a broken file', async () => {
    for (const bytes of [small, report, Buffer.from('%PDF-1.7\nnot really a pdf')]) {
      const expected = await inThread.summarizePdf(Buffer.from(bytes));
      expect(await compiled.summarizePdf(Buffer.from(bytes))).toEqual(expected);
    }
    expect(await compiled.summarizePdf(Buffer.from(small))).toEqual({ pages: 2, title: 'Two pages', text: 'Hello from page one\n\nand page two', truncated: false });
    expect(await compiled.summarizePdf(Buffer.from('%PDF-1.7\nnot really a pdf'))).toEqual({ note: inThread.PDF_UNREADABLE });
  }, READ_TIMEOUT_MS);

  it("gives the agent's page-by-page read through the worker: the same pages, pages without text, encrypted note", async () => {
    const scan = readFileSync(path.join(FIXTURES, 'memo-scan.pdf'));
    const locked = readFileSync(path.join(FIXTURES, 'memo-encrypted.pdf'));
    for (const bytes of [small, report, scan, locked]) expect(await compiled.readPdf(Buffer.from(bytes))).toEqual(await inThread.readPdf(Buffer.from(bytes)));
    expect(await compiled.readPdf(Buffer.from(scan))).toEqual({
      pages: 2,
      text: 'Quarterly memo\nRevenue rose by 12 percent.',
      truncated: false,
      pageTexts: ['Quarterly memo\nRevenue rose by 12 percent.', ''],
      pagesWithoutText: [2],
    });
    expect(await compiled.readPdf(Buffer.from(locked))).toEqual({ note: inThread.PDF_ENCRYPTED });
  }, READ_TIMEOUT_MS);

  it(`keeps the server's event loop free while a ${REPORT_PAGES}-page LibreOffice report is previewed`, async () => {
    const url = `/api/workspace/preview?${new URLSearchParams({ session_id: session, path: 'report.pdf' })}`;
    let previewDone = false;
    const healthBeforePreview: boolean[] = [];
    const { share, result } = await busyShare(async () => {
      const preview = srv.api(url).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));
      void preview.finally(() => (previewDone = true));
      // /health asked while the document is read is answered before the preview.
      const health = await srv.api('/health');
      healthBeforePreview.push(health.status === 200 && !previewDone);
      return preview;
    });
    const inThreadRun = await busyShare(() => inThread.summarizePdf(Buffer.from(report)));
    console.log(`server thread busy while the report was read: worker ${(share * 100).toFixed(0)} %, in-thread ${(inThreadRun.share * 100).toFixed(0)} %`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ kind: 'pdf', pages: inThreadRun.result.pages, text: inThreadRun.result.text });
    expect(inThreadRun.result.pages).toBeGreaterThanOrEqual(REPORT_PAGES);
    expect(healthBeforePreview).toEqual([true]);
    expect(share).toBeLessThan(MAX_MAIN_THREAD_SHARE);
    // The measure tells the two apart: read in this thread, the loop is busy most of the time (68-100 % seen).
    expect(share).toBeLessThan(inThreadRun.share / 2);
  }, READ_TIMEOUT_MS);

  it('ends a document that runs past its deadline with a note saying so, and reads the next one', async () => {
    const summary = await short.summarizePdf(Buffer.from(hostile));
    expect(summary).toEqual({ note: `This PDF took too long to read (over ${SHORT_DEADLINE_MS / 1000} s): no text preview.` });
    expect(short.PDF_TIMED_OUT).toBe(summary.note);
    // Its slot and worker are gone; a fresh worker reads the next document.
    expect(await short.summarizePdf(Buffer.from(small))).toMatchObject({ pages: 2, title: 'Two pages' });
  }, READ_TIMEOUT_MS);

  it('reads in a child process of its own; a child killed mid-read is an unreadable PDF, and the next gets a fresh one', async () => {
    const offThread = (await import(pathToFileURL(path.join(outDir, 'server', 'workspace', 'off-thread.js')).href)) as typeof import('./off-thread.js');
    await compiled.summarizePdf(Buffer.from(small));
    expect(offThreadChildren().length).toBeGreaterThan(0);
    // None left, so the child that reads the hostile document (minutes of work) is the only one.
    await offThread.endOffThreadChildren();
    expect(offThreadChildren()).toEqual([]);
    const reading = compiled.summarizePdf(Buffer.from(hostile));
    let busy: number[] = [];
    for (let i = 0; i < 200 && busy.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      busy = offThreadChildren();
    }
    expect(busy).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    process.kill(busy[0]!, 'SIGKILL');
    expect(await reading).toEqual({ note: inThread.PDF_UNREADABLE });
    expect(offThreadChildren()).toEqual([]);
    expect(await compiled.summarizePdf(Buffer.from(small))).toMatchObject({ pages: 2, title: 'Two pages' });
  }, READ_TIMEOUT_MS);

  it("leaves no child process once the server has stopped", async () => {
    const harness = (await import(pathToFileURL(path.join(outDir, 'server', 'testing', 'harness.js')).href)) as typeof Harness;
    const own = await harness.startTestServer();
    const id = await own.newSession();
    await fs.writeFile(path.join(own.workspace, 'small.pdf'), small);
    const res = await own.api(`/api/workspace/preview?${new URLSearchParams({ session_id: id, path: 'small.pdf' })}`);
    expect(res.status).toBe(200);
    expect(offThreadChildren().length).toBeGreaterThan(0);
    await own.stop();
    expect(offThreadChildren()).toEqual([]);
  }, READ_TIMEOUT_MS);
});

/** This process's children running the off-thread host (workspace/off-thread-host.js), alive (not zombies). */
function offThreadChildren(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      try {
        if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) continue;
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('off-thread-host')) pids.push(Number(pid));
      } catch {
        // Gone between the listing and the read.
      }
    }
  }
  return pids;
}
