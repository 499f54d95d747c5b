// Images made by a real tool (ffmpeg), read back by another (ffprobe), so the test does not grade sharp with sharp.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IMAGE_MAX_BYTES, AGENT_IMAGE_MAX_EDGE, ImageError, imageForAgent, MAX_IMAGE_INPUT_PIXELS } from './downscale.js';
import { ffmpegImages, hasFfmpeg } from './testing/ffmpeg-images.js';

if (!hasFfmpeg) console.log('SKIP server/image/downscale.test.ts (ffmpeg cases): ffmpeg is not installed (Debian package ffmpeg)');

let dir: string;
const { ffmpegImage, probe } = ffmpegImages(() => dir);
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-image-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PNG that declares `width`×`height` but holds one row of data: a decompression bomb's header. */
function pngHeaderOnly(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.alloc(width + 1))), chunk('IEND', Buffer.alloc(0))]);
}

describe.skipIf(!hasFfmpeg)('imageForAgent on images ffmpeg made', () => {
  it('a 4000×3000 JPEG comes back within the edge, aspect kept, as a JPEG under the byte cap', async () => {
    const original = ffmpegImage('photo.jpg', '4000x3000', ['-q:v', '2']);
    const out = (await imageForAgent(original))!;
    expect(out).toMatchObject({ mime: 'image/jpeg', width: AGENT_IMAGE_MAX_EDGE, height: 1176, originalWidth: 4000, originalHeight: 3000, resized: true });
    expect(out.data.length).toBeLessThanOrEqual(AGENT_IMAGE_MAX_BYTES);
    expect(probe(out.data)).toEqual({ width: AGENT_IMAGE_MAX_EDGE, height: 1176, codec: 'mjpeg' });
  });

  it('a portrait PNG is bounded by its height', async () => {
    const out = (await imageForAgent(ffmpegImage('tall.png', '1000x3136')))!;
    expect(probe(out.data)).toMatchObject({ width: 500, height: AGENT_IMAGE_MAX_EDGE });
    expect(out.resized).toBe(true);
  });

  it('a small PNG already within bounds is returned byte for byte', async () => {
    const original = ffmpegImage('small.png', '320x240');
    const out = (await imageForAgent(original))!;
    expect(out).toMatchObject({ mime: 'image/png', width: 320, height: 240, resized: false });
    expect(out.data.equals(original)).toBe(true);
  });

  it('a PNG with transparency stays a PNG (JPEG has no alpha)', async () => {
    const original = ffmpegImage('alpha.png', '2400x1200', ['-vf', 'format=rgba,colorchannelmixer=aa=0.5']);
    const out = (await imageForAgent(original))!;
    expect(out.mime).toBe('image/png');
    expect(probe(out.data)).toEqual({ width: AGENT_IMAGE_MAX_EDGE, height: 784, codec: 'png' });
  });

  it('a TIFF (not a format agents take) is converted even when small', async () => {
    const out = (await imageForAgent(ffmpegImage('scan.tiff', '64x48', ['-pix_fmt', 'rgb24'])))!;
    expect(out).toMatchObject({ mime: 'image/jpeg', width: 64, height: 48, resized: true });
    expect(probe(out.data).codec).toBe('mjpeg');
  });
});

describe('imageForAgent refuses what it should not decode', () => {
  it('a PNG declaring more pixels than the limit is refused before decoding, with the numbers', async () => {
    const side = Math.ceil(Math.sqrt(MAX_IMAGE_INPUT_PIXELS)) + 1;
    const err = await imageForAgent(pngHeaderOnly(side, side)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageError);
    expect((err as Error).message).toMatch(new RegExp(`too large to decode safely \\(${side}×${side} pixels`));
  });

  it('bytes that are not an image say so', async () => {
    const err = await imageForAgent(Buffer.from('%PDF-1.7 not an image at all')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageError);
    expect((err as Error).message).toMatch(/^not a readable image/);
  });

  it.skipIf(!hasFfmpeg)('a truncated JPEG is an error, not a half-grey picture', async () => {
    const whole = ffmpegImage('cut.jpg', '2000x1500');
    const err = await imageForAgent(whole.subarray(0, Math.floor(whole.length / 2))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageError);
  });
});
