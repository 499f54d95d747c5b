import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createOcrEngine, OcrError, ocrFiles } from './engine.js';
import { prose, renderPage, renderScreenshot, wordRecall } from './testing/render.js';
import { existsSync } from 'node:fs';

// A recognition takes a few seconds on a loaded 2-core machine; the first also loads the model.
const SLOW = 120_000;
const engine = createOcrEngine();
afterAll(() => engine.close());

describe('on-device OCR', () => {
  it('reads its core and English model from node_modules, nothing from the network', () => {
    const { corePath, dataPath } = ocrFiles();
    expect(corePath).toMatch(/node_modules[\\/]tesseract\.js-core[\\/]tesseract-core-simd-lstm\.js$/);
    expect(dataPath).toMatch(/node_modules[\\/]@tesseract\.js-data[\\/]eng[\\/]4\.0\.0_best_int[\\/]eng\.traineddata\.gz$/);
    expect(existsSync(corePath.replace(/\.js$/, '.wasm'))).toBe(true);
    expect(existsSync(dataPath)).toBe(true);
  });

  it('recognizes the words of a printed page of 11 pt text at 150 dpi', async () => {
    const page = await renderPage(prose(120), { points: 11, dpi: 150 });
    const result = await engine.recognizeImage(page.png);
    expect(wordRecall(page.text, result.text)).toBeGreaterThanOrEqual(0.95);
    expect(result.text).toContain('quarterly report describes how the team shipped');
    expect(result.words).toBeGreaterThanOrEqual(114);
  }, SLOW);

  it('recognizes the small UI text of a screenshot at its own pixels, as the tesseract CLI reads it', async () => {
    const shot = await renderScreenshot();
    const result = await engine.recognizeImage(shot.png);
    // 0.964, the CLI's own recall on this image; read at 2× in one block it was 0.959, without the title.
    expect(wordRecall(shot.text, result.text)).toBeGreaterThanOrEqual(0.96);
    expect(result.text).toContain('Project dashboard settings');
    expect(result.text).toContain('Billing history');
    // The toolbar's row (light text on a coloured button, "Send invoice" beside it) is missed at these pixels, by
    // the CLI too: the known weak spot, measured in docs/benchmarks.md.
  }, SLOW);

  it('reads text too small for the model at twice its pixels, each column in its own order', async () => {
    const shot = await renderScreenshot();
    // The same window at 60 %: 8 px text, which the model misreads as it stands (recall 0.107).
    const small = await sharp(shot.png).resize({ width: 768 }).png().toBuffer();
    const result = await engine.recognizeImage(small);
    expect(wordRecall(shot.text, result.text)).toBeGreaterThanOrEqual(0.98);
    expect(result.text).toMatch(/Overview\s+Invoices\s+Customers\s+Reports\s+Billing history\s+Team members/);
    expect(result.text).toContain('Export report Send invoice Archive');
  }, SLOW);

  it('finds no words in a picture without text, a 1×1 image or a blank page', async () => {
    const onePixel = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } }).png().toBuffer();
    const blank = await sharp({ create: { width: 1200, height: 1600, channels: 3, background: '#fff' } }).png().toBuffer();
    const gradient = await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><defs><linearGradient id="g"><stop offset="0" stop-color="#36c"/><stop offset="1" stop-color="#fc3"/></linearGradient></defs><rect width="800" height="600" fill="url(#g)"/><circle cx="400" cy="300" r="200" fill="#c33"/></svg>')).png().toBuffer();
    for (const image of [onePixel, blank, gradient]) expect(await engine.recognizeImage(image)).toEqual({ text: '', words: 0 });
  }, SLOW);

  it('refuses bytes that are not an image, and an image declaring more pixels than may be decoded, without decoding it', async () => {
    await expect(engine.recognizeImage(Buffer.from('not an image at all'))).rejects.toThrow(new OcrError('not a readable image'));
    // A PNG header declaring 100,000 × 100,000 pixels (10 gigapixels) with one tiny IDAT: a decompression bomb's shape.
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer();
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    const before = process.memoryUsage.rss();
    await expect(engine.recognizeImage(png)).rejects.toThrow('too large to read (100000×100000 pixels)');
    expect(process.memoryUsage.rss() - before).toBeLessThan(64 * 1024 * 1024);
  }, SLOW);

  it('ends a recognition past its time budget, and the next one starts a fresh worker', async () => {
    const page = await renderPage(prose(60), { points: 12, dpi: 150 });
    const hurried = createOcrEngine({ timeoutMs: 50, loadTimeoutMs: 0 });
    const started = Date.now();
    await expect(hurried.recognizeImage(page.png)).rejects.toThrow('text recognition took too long (over 0 s)');
    // Ended at the deadline: not after the seconds the model load and the page would have taken; its thread is gone.
    expect(Date.now() - started).toBeLessThan(1500 + 1000);
    expect(hurried.running).toBe(false);
    await hurried.close();
    const result = await engine.recognizeImage(page.png);
    expect(result.words).toBeGreaterThan(50);
  }, SLOW);

  it('keeps the worker between recognitions, and ends it once idle for its time', async () => {
    const page = await renderPage(prose(20), { points: 12, dpi: 150 });
    const brief = createOcrEngine({ idleMs: 300 });
    expect(brief.running).toBe(false);
    await brief.recognizeImage(page.png);
    expect(brief.running).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(brief.running).toBe(false);
    await brief.close();
  }, SLOW);

  it('starts its worker ahead when warmed, reads with it, and ends it once idle like a used one', async () => {
    const page = await renderPage(prose(20), { points: 12, dpi: 150 });
    const brief = createOcrEngine({ idleMs: 2_000 });
    brief.warm();
    expect(brief.running).toBe(true);
    // A second warm() while the worker is up starts nothing more, and the idle end still comes.
    brief.warm();
    const result = await brief.recognizeImage(page.png);
    expect(result.text).toContain('quarterly report');
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(brief.running).toBe(false);
    // Warmed and never used: ended after the idle time all the same.
    brief.warm();
    expect(brief.running).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(brief.running).toBe(false);
    await brief.close();
  }, SLOW);

  it('reads a 16-bit grayscale scan as its 8-bit image', async () => {
    const page = await renderPage(prose(40), { points: 12, dpi: 150 });
    const deep = await sharp(page.png).toColourspace('grey16').png().toBuffer();
    expect((await sharp(deep).metadata()).depth).toBe('ushort');
    const result = await engine.recognizeImage(deep);
    expect(result.text).toContain('quarterly report describes how the team shipped');
  }, SLOW);

  it('ends a recognition past its memory budget', async () => {
    const page = await renderPage(prose(60), { points: 12, dpi: 150 });
    // Loading the model alone adds well over 1 MiB to the resident set.
    const tight = createOcrEngine({ maxMemoryMb: 1 });
    await expect(tight.recognizeImage(page.png)).rejects.toThrow('text recognition needed too much memory (over 1 MiB)');
    await tight.close();
  }, SLOW);

  it('reads raw pixels, as a PDF page image arrives', async () => {
    const page = await renderPage(prose(60, 200), { points: 12, dpi: 150 });
    const { data, info } = await sharp(page.png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const result = await engine.recognizeImage(page.png);
    const fromPixels = await engine.recognizePixels({ data, width: info.width, height: info.height, channels: info.channels as 3 });
    expect(fromPixels).toEqual(result);
  }, SLOW);
});
