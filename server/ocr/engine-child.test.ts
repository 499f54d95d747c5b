// The OCR engine with its worker in a child process (the default under Node's compiled build; the host is bundled
// here from its sources): the same text, the same budgets and answers, and the process gone when the worker is.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOcrEngine, OcrError, type OcrEngine } from './engine.js';
import { prose, renderPage, scannedPdf } from './testing/render.js';
import { recognizePdfPages } from './pdf-pages.js';
import { bundleChild } from '../testing/compile.js';

// The server process here has no image library to decode with: every image is prepared in the child (sharp's
// native memory for a page's pixels leaves with it), so reading works all the same.
vi.mock('../image/downscale.js', async (original) => ({ ...(await original<typeof import('../image/downscale.js')>()), loadSharp: async () => undefined }));

const SLOW = 120_000;
let host: string;
const engines: OcrEngine[] = [];
const engine = (options: Parameters<typeof createOcrEngine>[0] = {}) => {
  const e = createOcrEngine({ childHost: host, ...options });
  engines.push(e);
  return e;
};

beforeAll(async () => {
  host = await bundleChild('server/workspace/off-thread-host.ts', 'ocr-host-');
}, SLOW);
afterAll(() => Promise.all(engines.map((e) => e.close())));

/** CPU a busy child spends before it is killed: well into a recognition, far below a page's seconds. */
const MOVING_CPU_S = 0.1;
/** A process's CPU seconds (utime + stime). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('on-device OCR in a child process', () => {
  it('reads a page in a process of its own, keeps it between pages, and ends it once idle', async () => {
    const page = await renderPage(prose(40), { points: 12, dpi: 150 });
    const brief = engine({ idleMs: 1_500 });
    const result = await brief.recognizeImage(page.png);
    expect(result.text).toContain('quarterly report describes how the team shipped');
    const pid = brief.pid!;
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(alive(pid)).toBe(true);
    // A scanned PDF page: pdf.js finds the page image in the child, the pixels come back, then are read there.
    const scan = await scannedPdf([{ kind: 'jpeg', png: page.png }]);
    const pages = await recognizePdfPages(scan, [1], brief);
    expect(pages.pages[0]?.text).toContain('quarterly report describes how the team shipped');
    expect(brief.pid).toBe(pid);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(brief.running).toBe(false);
    expect(alive(pid)).toBe(false);
  }, SLOW);

  it('decodes and prepares images and raw pixels in the child, not in the server process', async () => {
    const page = await renderPage(prose(40), { points: 12, dpi: 150 });
    const e = engine();
    expect((await e.recognizeImage(page.png)).text).toContain('quarterly report describes how the team shipped');
    const { data, info } = await sharp(page.png).grayscale().raw().toBuffer({ resolveWithObject: true });
    expect((await e.recognizePixels({ data, width: info.width, height: info.height, channels: 1 })).text).toContain('quarterly report describes how the team shipped');
    await expect(e.recognizeImage(Buffer.from('not an image at all'))).rejects.toThrow(new OcrError('not a readable image'));
  }, SLOW);

  it('answers a child killed mid-recognition as a stopped recognition, and the next page gets a fresh child', async () => {
    const page = await renderPage(prose(60), { points: 12, dpi: 150 });
    const e = engine();
    await e.recognizeImage(page.png);
    const pid = e.pid!;
    // The child is idle now (model loaded); once its CPU time moves, the next page is being read there.
    const idleCpu = cpuSeconds(pid);
    const reading = e.recognizeImage(page.png);
    while (cpuSeconds(pid) < idleCpu + MOVING_CPU_S) await new Promise((r) => setTimeout(r, 20));
    process.kill(pid, 'SIGKILL');
    await expect(reading).rejects.toThrow('text recognition stopped unexpectedly');
    const again = await e.recognizeImage(page.png);
    expect(again.words).toBeGreaterThan(50);
    expect(e.pid).not.toBe(pid);
  }, SLOW);

  it('ends the child past the time and the memory budgets', async () => {
    const page = await renderPage(prose(60), { points: 12, dpi: 150 });
    const hurried = engine({ timeoutMs: 50, loadTimeoutMs: 0 });
    hurried.warm();
    const pid = hurried.pid!;
    await expect(hurried.recognizeImage(page.png)).rejects.toThrow('text recognition took too long (over 0 s)');
    expect(hurried.running).toBe(false);
    expect(alive(pid)).toBe(false);
    const tight = engine({ maxMemoryMb: 1 });
    await expect(tight.recognizeImage(page.png)).rejects.toThrow('text recognition needed too much memory (over 1 MiB)');
    expect(tight.running).toBe(false);
  }, SLOW);
});
