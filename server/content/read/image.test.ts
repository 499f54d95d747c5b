import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ocrEngine } from '../../ocr/engine.js';
import type { ChatAttachment } from '../../core/wire.js';
import { prose, renderPage } from '../../ocr/testing/render.js';
import type { Part } from '../index.js';
import { Budget, readAttachment } from '../index.js';

// OCR of a page takes a few seconds on a loaded 2-core machine; the first also loads the model.
const SLOW = 120_000;

let tmp: string;
let root: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-read-image-'));
  root = path.join(tmp, 'attachments');
  fs.mkdirSync(root);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function upload(name: string, data: Buffer, mime = 'image/png'): ChatAttachment {
  const file = path.join(root, name);
  fs.writeFileSync(file, data);
  return { kind: 'file', filename: name, path: file, mime, size: data.length, is_image: mime.startsWith('image/') };
}
const texts = (parts: Part[]) => parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);
const imageUrl = (parts: Part[]) => parts.flatMap((p) => (p.type === 'image' ? [`data:${p.mime};base64,${p.data}`] : []))[0];

describe('an image as the agent gets it', () => {
  it('a photo of text: the image downscaled, then the recognized text, and the chip says both', async () => {
    // A 300 dpi scan of a short memo: 2550 px wide, so sent at the agents' 1568 px edge.
    const page = await renderPage(prose(24), { points: 12, dpi: 300, family: 'DejaVu Sans' });
    const told: [string, string][] = [];
    const a = upload('shot.png', page.png);
    const read = await readAttachment(a, new Budget(200_000), { roots: [root], onAttachmentText: (p, t) => told.push([p, t]) });
    expect(read.summary).toEqual({ state: 'ready', text: 'image, sent at 1212×1568, 24 words of text recognized' });
    expect(read.parts.map((p) => p.type)).toEqual(['text', 'image', 'text']);
    expect(texts(read.parts)[0]).toBe('Attached image "shot.png":');
    const sent = Buffer.from(imageUrl(read.parts)!.split(',')[1]!, 'base64');
    expect(await sharp(sent).metadata()).toMatchObject({ width: 1212, height: 1568 });
    const ocr = texts(read.parts)[1]!;
    expect(ocr.startsWith('Text recognized in "shot.png" (on-device OCR):\nThe quarterly report describes how the team shipped the new billing')).toBe(true);
    expect(told).toEqual([[a.path, ocr.slice(ocr.indexOf('\n') + 1)]]);
  }, SLOW);

  it('the same image read again (its chip, then the turn) is recognized once', async () => {
    const page = await renderPage(prose(12, 300), { points: 12, dpi: 150 });
    const a = upload('again.png', page.png);
    // Counted at the engine, not timed: a loaded machine makes any clock comparison a coin toss.
    const recognitions = vi.spyOn(ocrEngine(), 'recognizeImage');
    const once = await readAttachment(a, new Budget(200_000), { roots: [root] });
    const twice = await readAttachment(a, new Budget(200_000), { roots: [root] });
    expect(twice).toEqual(once);
    expect(recognitions).toHaveBeenCalledTimes(1);
    recognitions.mockRestore();
  }, SLOW);

  it('the recognized text draws from the turn budget and the chip says where it was cut', async () => {
    const page = await renderPage(prose(24), { points: 12, dpi: 150 });
    const read = await readAttachment(upload('memo.png', page.png), new Budget(40), { roots: [root] });
    expect(read.summary).toEqual({ state: 'partial', text: 'image, sent at 1212×1568, 24 words of text recognized, cut at 40 of 147 characters' });
    expect(texts(read.parts)[1]).toBe('Text recognized in "memo.png" (on-device OCR):\nThe quarterly report describes how the t\n[… truncated: 107 more characters of memo.png]');
  }, SLOW);

  it('an image without text: the image alone, and no text part', async () => {
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a7' } }).jpeg().toBuffer();
    const read = await readAttachment(upload('lawn.jpg', photo, 'image/jpeg'), new Budget(200_000), { roots: [root] });
    expect(read.summary).toEqual({ state: 'ready', text: 'image, sent at 800×600' });
    expect(read.parts.map((p) => p.type)).toEqual(['text', 'image']);
    // Small enough as it is: the person's own bytes.
    expect(imageUrl(read.parts)).toBe(`data:image/jpeg;base64,${photo.toString('base64')}`);
  }, SLOW);

  it('an image that cannot be decoded is named, not sent, and the chip says so', async () => {
    const truncated = (await sharp({ create: { width: 64, height: 64, channels: 3, background: '#fff' } }).png().toBuffer()).subarray(0, 40);
    const read = await readAttachment(upload('broken.png', truncated), new Budget(200_000), { roots: [root] });
    expect(read.summary.state).toBe('unreadable');
    expect(read.summary.text).toMatch(/^not a readable image \(.*\): only its name is sent$/);
    expect(imageUrl(read.parts)).toBeUndefined();
    // Named only: no Satchel URI was given, and a path never goes to the agent.
    expect(texts(read.parts)[0]).toMatch(/^\[Attached file "broken\.png" \(image\/png, 40 bytes\); not sent: not a readable image/);
  });

  it('an image declaring 10 gigapixels is refused from its header, within memory', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer();
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    const before = process.memoryUsage.rss();
    const read = await readAttachment(upload('bomb.png', png), new Budget(200_000), { roots: [root] });
    expect(read.summary).toEqual({ state: 'unreadable', text: 'too large to decode safely (100000×100000 pixels; the limit is 50,000,000): only its name is sent' });
    expect(process.memoryUsage.rss() - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('a 1×1 image is sent as it is, with no text', async () => {
    const dot = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer();
    const read = await readAttachment(upload('dot.png', dot), new Budget(200_000), { roots: [root] });
    expect(read.summary).toEqual({ state: 'ready', text: 'image, sent at 1×1' });
    expect(imageUrl(read.parts)).toBe(`data:image/png;base64,${dot.toString('base64')}`);
  }, SLOW);
});
