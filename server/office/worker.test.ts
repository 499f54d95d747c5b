// The worker path exists only in the compiled build, so the office modules are compiled here into a private
// folder inside the project (node_modules and "type": "module" resolve as in dist/) and the compiled index.js
// is exercised: same Markdown and errors as the in-thread path, and an event loop that keeps turning.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as inThread from './index.js';
import { OFFICE_MAX_MEMBER_BYTES } from './index.js';
import { buildDocx, buildPptx, buildXlsx, buildZip, pShape, wHeading, wPara, wTable } from './testing/fixtures.js';
import { sidecarFor } from './testing/sidecar.js';
import { useTmpDir } from './testing/tmpdir.js';
import { BUILD_TIMEOUT_MS, compileProject } from '../testing/compile.js';

// A full tsc pass; on the shared 2-core machine under load it has taken 30 s.
const CONVERT_TIMEOUT_MS = 30_000;
const TICK_MS = 20;
// The in-thread conversion of the large sheet stalls the loop for 0.5–1.5 s; a worker leaves only noise.
const MAX_LOOP_GAP_MS = 200;

const tmp = useTmpDir();
let outDir: string;
let compiled: typeof inThread;
let throwing: typeof inThread;
let exiting: typeof inThread;
let slow: typeof inThread;

beforeAll(async () => {
  outDir = compileProject('office-worker-');
  const office = path.join(outDir, 'server', 'office');
  expect(existsSync(path.join(office, 'convert-worker.js')), 'the worker compiled').toBe(true);
  compiled = (await import(pathToFileURL(path.join(office, 'index.js')).href)) as typeof inThread;
  // Variants of the compiled module whose worker misbehaves, to show a failing worker is only a rejection.
  const source = readFileSync(path.join(office, 'index.js'), 'utf8');
  const variant = async (name: string, from: string, to: string) => {
    expect(source, `index.js contains ${from}`).toContain(from);
    writeFileSync(path.join(office, name), source.replace(from, to));
    return (await import(pathToFileURL(path.join(office, name)).href)) as typeof inThread;
  };
  writeFileSync(path.join(office, 'throw-worker.js'), "throw new Error('worker blew up');\n");
  writeFileSync(path.join(office, 'exit-worker.js'), 'process.exit(7);\n');
  throwing = await variant('index-throw.js', "'./convert-worker.js'", "'./throw-worker.js'");
  exiting = await variant('index-exit.js', "'./convert-worker.js'", "'./exit-worker.js'");
  slow = await variant('index-slow.js', 'OFFICE_WORKER_TIMEOUT_MS = 60_000', 'OFFICE_WORKER_TIMEOUT_MS = 1');
}, BUILD_TIMEOUT_MS + 5_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** A sheet whose XML part is just under the member limit (numbers deflate far below the ratio limit). */
function largeSheetData(): string {
  const rows: string[] = [];
  let size = 0;
  const budget = OFFICE_MAX_MEMBER_BYTES - 10_000;
  for (let r = 1; ; r++) {
    const cells = Array.from({ length: 10 }, (_, c) => `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r * 37 + c * 1009}</v></c>`).join('');
    const row = `<row r="${r}">${cells}</row>`;
    if (size + row.length > budget) break;
    rows.push(row);
    size += row.length;
  }
  return rows.join('');
}

/** Largest gap between interval ticks while `work` runs. */
async function loopGapDuring<T>(work: () => Promise<T>): Promise<{ gap: number; result: T }> {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, TICK_MS);
  try {
    const result = await work();
    gap = Math.max(gap, performance.now() - last);
    return { gap, result };
  } finally {
    clearInterval(timer);
  }
}

describe('Office conversion in a worker (compiled build)', () => {
  it.each<[inThread.OfficeFormat, () => Promise<Buffer>]>([
    ['docx', () => buildDocx(wHeading(1, 'Café') + wPara('naïve') + wTable([['a', 'b'], ['1', '2']]))],
    ['xlsx', () => buildXlsx([{ name: 'S', sheetData: '<row r="1"><c r="A1"><v>42</v></c><c r="B1"><v>7</v></c></row>' }])],
    ['pptx', () => buildPptx([{ file: 'slide1.xml', shapes: pShape(['Hi'], 'title') + pShape(['body text']) }])],
  ])('converts a %s to the same Markdown and sidecar as in-thread', async (format, build) => {
    const file = await tmp.write(`doc.${format}`, await build());
    const expected = await inThread.officeToMarkdown(file, format);
    expect(expected.length).toBeGreaterThan(0);
    expect(await compiled.officeToMarkdown(file, format)).toBe(expected);
    const sidecar = await sidecarFor(file, format, compiled);
    expect(sidecar).toEqual({
      filename: `doc.${format}.md`,
      path: path.join(tmp.path, `doc.${format}.md`),
      size: Buffer.byteLength(expected),
      preview_kind: 'office',
      office_format: format,
    });
    expect(await fs.readFile(sidecar.path, 'utf8')).toBe(expected);
  });

  it(
    'keeps the event loop turning while a sheet near the member limit converts',
    async () => {
      const file = await tmp.write('big.xlsx', await buildXlsx([{ name: 'Big', sheetData: largeSheetData() }]));
      const { gap, result } = await loopGapDuring(() => sidecarFor(file, 'xlsx', compiled));
      const inThreadRun = await loopGapDuring(() => inThread.officeToMarkdown(file, 'xlsx'));
      console.log(`largest event-loop gap: worker ${gap.toFixed(0)} ms, in-thread ${inThreadRun.gap.toFixed(0)} ms`);
      expect(gap).toBeLessThan(MAX_LOOP_GAP_MS);
      expect(await fs.readFile(result.path, 'utf8')).toBe(inThreadRun.result);
      expect(result.size).toBeGreaterThan(0);
    },
    CONVERT_TIMEOUT_MS * 2,
  );

  it('refuses a guard violation with the same OfficeError and leaves no sidecar', async () => {
    const file = await tmp.write('bomb.docx', await buildZip([{ name: 'word/document.xml', data: Buffer.alloc(3_000_000) }]));
    const err = await sidecarFor(file, 'docx', compiled).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('OfficeError');
    expect((err as Error).message).toBe('Zip member compression ratio above 200: word/document.xml');
    await expect(sidecarFor(file, 'docx', inThread)).rejects.toThrow((err as Error).message);
    expect((await fs.readdir(tmp.path)).sort()).toEqual(['bomb.docx']);
  });

  it('wraps a parser failure in the worker exactly as in-thread', async () => {
    const file = await tmp.write('broken.xlsx', await buildXlsx([{ name: 'S', sheetData: '<row r="1"><c r="A1"><v>1</v></c>' }]));
    const inThreadErr = (await inThread.officeToMarkdown(file, 'xlsx').catch((e: unknown) => e)) as Error;
    const workerErr = (await sidecarFor(file, 'xlsx', compiled).catch((e: unknown) => e)) as Error;
    expect(inThreadErr.name).toBe('OfficeError');
    expect(workerErr.name).toBe('OfficeError');
    expect(workerErr.message).toBe(inThreadErr.message);
    expect((await fs.readdir(tmp.path)).sort()).toEqual(['broken.xlsx']);
  });

  it.each<[string, () => typeof inThread, string]>([
    ['throws', () => throwing, 'Office conversion failed: worker blew up'],
    ['exits', () => exiting, 'Office conversion worker exited unexpectedly (code 7)'],
    ['runs out of time', () => slow, 'Office conversion timed out (> 1 ms)'],
  ])('turns a worker that %s into an OfficeError and leaves no sidecar', async (_label, office, message) => {
    const file = await tmp.write('doc.xlsx', await buildXlsx([{ name: 'S', sheetData: largeSheetData() }]));
    const err = (await sidecarFor(file, 'xlsx', office()).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('OfficeError');
    expect(err.message).toBe(message);
    expect((await fs.readdir(tmp.path)).sort()).toEqual(['doc.xlsx']);
    // The one-at-a-time slot was released: the next conversion runs (and meets the same broken worker).
    expect(await office().officeToMarkdown(await tmp.write('s.xlsx', await buildXlsx([{ name: 'S', sheetData: '' }])), 'xlsx').catch((e: Error) => e.message)).toBe(
      message,
    );
  }, CONVERT_TIMEOUT_MS);
});
