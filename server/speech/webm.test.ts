import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFormatError } from './audio-error.js';
import { missingTools, synthFlite, toWebmOpus } from './testing/synth.js';
import { demuxWebm } from './webm.js';

// A tiny EBML writer, enough to build the shapes MediaRecorder and other muxers produce.
function vintSize(n: number): Buffer {
  for (let length = 1; length <= 8; length++) {
    if (n < 2 ** (7 * length) - 1) {
      const out = Buffer.alloc(length);
      let v = n;
      for (let i = length - 1; i >= 0; i--) {
        out[i] = v % 256;
        v = Math.floor(v / 256);
      }
      out[0] = (out[0] as number) | (0x80 >> (length - 1));
      return out;
    }
  }
  throw new Error('too big');
}
const UNKNOWN = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

function idBytes(id: number): Buffer {
  const hex = id.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}
function el(id: number, ...children: (Buffer | Uint8Array)[]): Buffer {
  const body = Buffer.concat(children);
  return Buffer.concat([idBytes(id), vintSize(body.length), body]);
}
function elUnknown(id: number, ...children: Buffer[]): Buffer {
  return Buffer.concat([idBytes(id), UNKNOWN, ...children]);
}
const uint = (n: number) => Buffer.from([n]);
const str = (s: string) => Buffer.from(s, 'ascii');

const header = (docType = 'webm') => el(0x1a45dfa3, el(0x4286, uint(1)), el(0x4282, str(docType)));
function track(number: number, type: number, codec: string): Buffer {
  return el(0xae, el(0xd7, uint(number)), el(0x83, uint(type)), el(0x86, str(codec)), el(0xe1, el(0x9f, uint(1))));
}
/** A SimpleBlock of `track` holding `payload` with the given lacing bits and lacing header. */
function simpleBlock(trackNumber: number, lacing: number, lacingHeader: number[], ...frames: Buffer[]): Buffer {
  return el(0xa3, Buffer.concat([vintSize(trackNumber), Buffer.from([0, 0, 0x80 | (lacing << 1)]), Buffer.from(lacingHeader), ...frames]));
}
const frame = (byte: number, length: number) => Buffer.alloc(length, byte);

function recorderLike(blocks: Buffer[]): Buffer {
  // MediaRecorder: unknown-size Segment and Clusters, a video track listed first.
  return Buffer.concat([
    header(),
    elUnknown(
      0x18538067,
      el(0x1549a966, el(0x2ad7b1, Buffer.from([0x0f, 0x42, 0x40]))),
      el(0x1654ae6b, track(1, 1, 'V_VP8'), track(2, 2, 'A_OPUS')),
      elUnknown(0x1f43b675, el(0xe7, uint(0)), ...blocks.slice(0, 2)),
      elUnknown(0x1f43b675, el(0xe7, uint(40)), ...blocks.slice(2)),
    ),
  ]);
}

describe('demuxWebm (synthetic files)', () => {
  it('follows unknown-size Segment and Clusters and keeps only the audio track', () => {
    const file = recorderLike([
      simpleBlock(2, 0, [], frame(1, 10)),
      simpleBlock(1, 0, [], frame(9, 50)),
      simpleBlock(2, 0, [], frame(2, 11)),
      simpleBlock(2, 0, [], frame(3, 12)),
    ]);
    const audio = demuxWebm(file);
    expect(audio.docType).toBe('webm');
    expect(audio.codecId).toBe('A_OPUS');
    expect(audio.channels).toBe(1);
    expect(audio.frames.map((f) => [f[0], f.length])).toEqual([
      [1, 10],
      [2, 11],
      [3, 12],
    ]);
  });

  it('splits Xiph, EBML and fixed-size laced blocks', () => {
    const xiph = simpleBlock(2, 1, [2, 255, 45, 7], frame(1, 300), frame(2, 7), frame(3, 5));
    // EBML lacing: first size 300 (vint), then a signed difference: 7 - 300 = -293, biased by 8191 in 2 bytes.
    const diff = 8191 - 293;
    const ebml = simpleBlock(2, 3, [2, 0x41, 0x2c, 0x40 | (diff >> 8), diff & 0xff], frame(4, 300), frame(5, 7), frame(6, 9));
    const fixed = simpleBlock(2, 2, [2], frame(7, 4), frame(8, 4), frame(9, 4));
    const audio = demuxWebm(recorderLike([xiph, ebml, fixed]));
    expect(audio.frames.map((f) => [f[0], f.length])).toEqual([
      [1, 300],
      [2, 7],
      [3, 5],
      [4, 300],
      [5, 7],
      [6, 9],
      [7, 4],
      [8, 4],
      [9, 4],
    ]);
  });

  it('reads Blocks inside BlockGroups', () => {
    const block = el(0xa1, Buffer.concat([vintSize(2), Buffer.from([0, 0, 0]), frame(5, 20)]));
    const file = recorderLike([el(0xa0, block, el(0x9b, uint(20)))]);
    expect(demuxWebm(file).frames.map((f) => f.length)).toEqual([20]);
  });

  it('keeps the frames before a cut-off tail', () => {
    const file = recorderLike([simpleBlock(2, 0, [], frame(1, 10)), simpleBlock(2, 0, [], frame(2, 10)), simpleBlock(2, 0, [], frame(3, 100))]);
    const audio = demuxWebm(file.subarray(0, file.length - 50));
    expect(audio.frames.map((f) => f[0])).toEqual([1, 2]);
  });

  it('rejects files that are not WebM or have no audio', () => {
    expect(() => demuxWebm(Buffer.from('RIFF....WAVE'))).toThrow(new AudioFormatError('Invalid WebM file: no EBML header'));
    const videoOnly = Buffer.concat([header(), el(0x18538067, el(0x1654ae6b, track(1, 1, 'V_VP8')))]);
    expect(() => demuxWebm(videoOnly)).toThrow('WebM file has no audio track');
    const other = Buffer.concat([header('qt'), el(0x18538067, el(0x1654ae6b, track(1, 2, 'A_OPUS')))]);
    expect(() => demuxWebm(other)).toThrow('Invalid WebM file: document type "qt"');
  });

  it('reports malformed lacing instead of reading past the block', () => {
    const bad = simpleBlock(2, 1, [1, 200], frame(1, 10));
    expect(() => demuxWebm(recorderLike([bad]))).toThrow('Invalid WebM file: malformed lacing');
  });
});

describe('demuxWebm (a Chromium MediaRecorder recording)', () => {
  it('reads the stereo Opus track of the unknown-size Segment and Clusters Chromium writes', async () => {
    // Made by testing/record-chromium.mjs from 6 s of espeak-ng speech through the fake microphone.
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testing', 'fixtures', 'chromium-opus.webm');
    const bytes = await fs.readFile(fixture);
    expect(bytes.subarray(0x28, 0x30)).toEqual(Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])); // unknown size
    const audio = demuxWebm(bytes);
    expect(audio).toMatchObject({ docType: 'webm', codecId: 'A_OPUS', channels: 2, sampleRate: 48000 });
    expect(Buffer.from(audio.codecPrivate ?? []).subarray(0, 8).toString('ascii')).toBe('OpusHead');
    // Chromium packs 60 ms per Opus packet: about 92 over the 5.5 s recording.
    expect(audio.frames.length).toBeGreaterThan(85);
    expect(audio.frames.length).toBeLessThan(100);
  });
});

const missing = missingTools('flite', 'ffmpeg');
describe.skipIf(missing.length > 0)('demuxWebm (ffmpeg-made WebM/Opus)', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-webm-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('finds the Opus track, its OpusHead and 20 ms frames', async () => {
    const wav = path.join(dir, 'a.wav');
    const webm = path.join(dir, 'a.webm');
    await synthFlite('Turn off the lights when you leave the room.', 'slt', wav);
    await toWebmOpus(wav, webm);
    const audio = demuxWebm(await fs.readFile(webm));
    expect(audio.codecId).toBe('A_OPUS');
    expect(audio.sampleRate).toBe(48000);
    expect(Buffer.from(audio.codecPrivate ?? []).subarray(0, 8).toString('ascii')).toBe('OpusHead');
    const wavSeconds = ((await fs.stat(wav)).size - 44) / 2 / 16000;
    // One frame per 20 ms, give or take the encoder's padding frame.
    expect(Math.abs(audio.frames.length - wavSeconds / 0.02)).toBeLessThanOrEqual(2);
  });
});
if (missing.length > 0) console.log(`webm.test: skipping ffmpeg-made WebM tests: missing ${missing.join(', ')}`);
