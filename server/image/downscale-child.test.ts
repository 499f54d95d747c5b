// The agent's image is made in the OCR worker's child process (the default under Node's compiled build; the host is
// bundled here from its sources), never in the server: the server's sharp is replaced by one that fails when
// touched, and the images come back all the same, with downscale's answers and refusals word for word. Images are
// made by ffmpeg and read back by ffprobe, as in downscale.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT_IMAGE_MAX_BYTES, AGENT_IMAGE_MAX_EDGE, ImageError, imageForAgent, MAX_IMAGE_INPUT_PIXELS } from './downscale.js';
import { createOcrEngine, type OcrEngine } from '../ocr/engine.js';
import { bundleChild } from '../testing/compile.js';
import { ffmpegImages, hasFfmpeg } from './testing/ffmpeg-images.js';

vi.mock('sharp', () => ({
  default: () => {
    throw new Error('sharp was used in the server process');
  },
}));

const SLOW = 120_000;
if (!hasFfmpeg) console.log('SKIP server/image/downscale-child.test.ts: ffmpeg is not installed (Debian package ffmpeg)');

let dir: string;
const { ffmpegImage, probe } = ffmpegImages(() => dir);
let engine: OcrEngine;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-image-child-'));
  engine = createOcrEngine({ childHost: await bundleChild('server/workspace/off-thread-host.ts', 'image-host-') });
}, SLOW);
afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasFfmpeg)('the agent\'s image made in the worker\'s child process', () => {
  it('a 4000×3000 JPEG comes back within the edge as a JPEG under the byte cap, from a process of its own', async () => {
    const out = (await imageForAgent(ffmpegImage('photo.jpg', '4000x3000', ['-q:v', '2']), engine))!;
    expect(out).toMatchObject({ mime: 'image/jpeg', width: AGENT_IMAGE_MAX_EDGE, height: 1176, originalWidth: 4000, originalHeight: 3000, resized: true });
    expect(out.data.length).toBeLessThanOrEqual(AGENT_IMAGE_MAX_BYTES);
    expect(probe(out.data)).toEqual({ width: AGENT_IMAGE_MAX_EDGE, height: 1176, codec: 'mjpeg' });
    expect(engine.pid).toBeGreaterThan(0);
    expect(engine.pid).not.toBe(process.pid);
  }, SLOW);

  it('a small PNG within bounds is the person\'s bytes, byte for byte; transparency stays a PNG', async () => {
    const small = ffmpegImage('small.png', '320x240');
    const kept = (await imageForAgent(small, engine))!;
    expect(kept).toMatchObject({ mime: 'image/png', width: 320, height: 240, originalWidth: 320, originalHeight: 240, resized: false });
    expect(kept.data.equals(small)).toBe(true);
    const alpha = (await imageForAgent(ffmpegImage('alpha.png', '2400x1200', ['-vf', 'format=rgba,colorchannelmixer=aa=0.5']), engine))!;
    expect(alpha.mime).toBe('image/png');
    expect(probe(alpha.data)).toEqual({ width: AGENT_IMAGE_MAX_EDGE, height: 784, codec: 'png' });
  }, SLOW);

  it('refuses with the same sentences: not an image, a truncated JPEG, too many pixels', async () => {
    const notImage = await imageForAgent(Buffer.from('%PDF-1.7 not an image at all'), engine).catch((e: unknown) => e);
    expect(notImage).toBeInstanceOf(ImageError);
    expect((notImage as Error).message).toMatch(/^not a readable image \(.+\)$/);
    const whole = ffmpegImage('cut.jpg', '2000x1500');
    const cut = await imageForAgent(whole.subarray(0, Math.floor(whole.length / 2)), engine).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ImageError);
    // A PNG whose header (its checksum made right) declares 7072 × 7072 > 50,000,000 pixels: refused before decoding.
    const side = Math.ceil(Math.sqrt(MAX_IMAGE_INPUT_PIXELS)) + 1;
    const bomb = ffmpegImage('bomb-src.png', '16x16');
    bomb.writeUInt32BE(side, 16);
    bomb.writeUInt32BE(side, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29);
    const refused = await imageForAgent(bomb, engine).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImageError);
    expect((refused as Error).message).toBe(`too large to decode safely (${side}×${side} pixels; the limit is 50,000,000)`);
  }, SLOW);
});
