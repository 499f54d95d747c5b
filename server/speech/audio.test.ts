import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFormatError, decodeToPcm16k, SAMPLE_RATE, writeWav16k } from './audio.js';
import { ffmpegDecode } from './ffmpeg.js';
import { ffmpegConvert, missingTools, synthFlite, toOggOpus, toWebmOpus, which } from './testing/synth.js';
import { encodeWav16, parseWav } from './wav.js';

let dir = '';
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-audio-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Run `fn` with a PATH on which there is no ffmpeg (nor anything else). */
async function withoutFfmpeg<T>(fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = path.join(dir, 'empty-bin');
  try {
    expect(which('ffmpeg')).toBeUndefined();
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

/** Best normalized cross-correlation of a and b over lags up to `maxLag` samples. */
function similarity(a: Float32Array, b: Float32Array, maxLag = 400): { corr: number; lag: number } {
  const n = Math.min(a.length, b.length) - maxLag;
  let best = { corr: -1, lag: 0 };
  for (let lag = -maxLag; lag <= maxLag; lag += 1) {
    let ab = 0;
    let aa = 0;
    let bb = 0;
    for (let i = maxLag; i < n; i += 2) {
      const x = a[i] as number;
      const y = b[i + lag] as number;
      ab += x * y;
      aa += x * x;
      bb += y * y;
    }
    const corr = ab / Math.sqrt(aa * bb || 1);
    if (corr > best.corr) best = { corr, lag };
  }
  return best;
}

async function writeFile(name: string, bytes: Uint8Array | string): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  return file;
}

describe('decodeToPcm16k: WAV (no external tools)', () => {
  it('resamples 44.1 kHz stereo to 16 kHz mono of the same duration', async () => {
    const frames = 44100 * 2;
    const data = Buffer.alloc(frames * 4);
    for (let i = 0; i < frames; i++) {
      const v = Math.round(16000 * Math.sin((2 * Math.PI * 440 * i) / 44100));
      data.writeInt16LE(v, i * 4);
      data.writeInt16LE(v, i * 4 + 2);
    }
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'ascii');
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVEfmt ', 8, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(2, 22);
    header.writeUInt32LE(44100, 24);
    header.writeUInt32LE(44100 * 4, 28);
    header.writeUInt16LE(4, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'ascii');
    header.writeUInt32LE(data.length, 40);
    const file = await writeFile('stereo.wav', Buffer.concat([header, data]));
    const pcm = await withoutFfmpeg(() => decodeToPcm16k(file));
    expect(pcm.length).toBe(2 * SAMPLE_RATE);
    const peak = pcm.slice(1000, 31000).reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(peak).toBeGreaterThan(0.47);
    expect(peak).toBeLessThan(0.51);
  });

  it('reports an empty file, a truncated WAV and a file with no audio frames', async () => {
    await expect(decodeToPcm16k(await writeFile('empty.webm', ''))).rejects.toThrow(new AudioFormatError('The audio file is empty'));
    const full = encodeWav16(new Float32Array(1000), 16000);
    await expect(decodeToPcm16k(await writeFile('cut.wav', full.subarray(0, 500)))).rejects.toThrow(
      'WAV file is truncated: its data chunk declares 2000 bytes but only 456 are present',
    );
    await expect(decodeToPcm16k(await writeFile('none.wav', encodeWav16(new Float32Array(0), 16000)))).rejects.toThrow(
      'The audio file holds no audio',
    );
  });

  it('refuses audio longer than 30 minutes before decoding it', async () => {
    // 8 kHz mu-law: one byte per sample keeps the 30-minute file at 14 MB.
    const seconds = 30 * 60 + 1;
    const header = Buffer.from(encodeWav16(new Float32Array(0), 8000).subarray(0, 44));
    header.writeUInt16LE(7, 20);
    header.writeUInt32LE(8000, 28);
    header.writeUInt16LE(1, 32);
    header.writeUInt16LE(8, 34);
    header.writeUInt32LE(seconds * 8000, 40);
    header.writeUInt32LE(36 + seconds * 8000, 4);
    const file = await writeFile('long.wav', Buffer.concat([header, Buffer.alloc(seconds * 8000, 0xff)]));
    await expect(decodeToPcm16k(file)).rejects.toThrow('Audio is too long to transcribe (the limit is 30 minutes)');
  });

  it('stops when its signal is aborted', async () => {
    const file = await writeFile('ok.wav', encodeWav16(new Float32Array(1600), 16000));
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(decodeToPcm16k(file, { signal: controller.signal })).rejects.toThrow('client went away');
  });

  it('names the missing decoder for formats it cannot read itself', async () => {
    const mp3 = await writeFile('voice.mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64, ...Array(400).fill(0)]));
    await withoutFfmpeg(() =>
      expect(decodeToPcm16k(mp3)).rejects.toThrow(new AudioFormatError('Cannot decode .mp3 audio: ffmpeg is not installed')),
    );
    const bare = await writeFile('noext', Buffer.from('just some text, not audio'));
    await withoutFfmpeg(() =>
      expect(decodeToPcm16k(bare)).rejects.toThrow('Cannot decode this audio format: ffmpeg is not installed'),
    );
  });
});

describe('writeWav16k', () => {
  it('writes a 16-bit 16 kHz WAV atomically, leaving no temporary file', async () => {
    const pcm = Float32Array.from({ length: 1600 }, (_, i) => 0.5 * Math.sin(i / 10));
    const file = path.join(dir, 'out', 'written.wav');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeWav16k(pcm, file);
    expect(await fs.readdir(path.dirname(file))).toEqual(['written.wav']);
    const bytes = await fs.readFile(file);
    expect(bytes.length).toBe(44 + 3200);
    const wav = parseWav(bytes);
    expect(wav.sampleRate).toBe(16000);
    const back = await decodeToPcm16k(file);
    back.forEach((v, i) => expect(Math.abs(v - (pcm[i] as number))).toBeLessThan(1e-4));
  });

  it('leaves nothing behind when the target cannot be written', async () => {
    const target = path.join(dir, 'no-such-dir', 'x.wav');
    await expect(writeWav16k(new Float32Array(10), target)).rejects.toThrow();
    await expect(fs.readdir(path.join(dir, 'no-such-dir'))).rejects.toThrow();
  });
});

const missing = missingTools('flite', 'ffmpeg');
if (missing.length > 0) console.log(`audio.test: skipping encoded-audio tests: missing ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('decodeToPcm16k: encoded audio', { timeout: 120_000 }, () => {
  let speechWav = '';
  let reference: Float32Array = new Float32Array(0);
  beforeAll(async () => {
    speechWav = path.join(dir, 'speech.wav');
    await synthFlite('Please open the settings window and change the language to English.', 'slt', speechWav);
    reference = await decodeToPcm16k(speechWav);
  });

  it('decodes WebM/Opus (as MediaRecorder writes it) in-process, with ffmpeg hidden from PATH', async () => {
    const webm = path.join(dir, 'speech.webm');
    await toWebmOpus(speechWav, webm);
    const pcm = await withoutFfmpeg(() => decodeToPcm16k(webm));
    // Same length as the source (pre-skip trimmed) and the same waveform, time-aligned.
    expect(Math.abs(pcm.length - reference.length)).toBeLessThan(0.02 * SAMPLE_RATE);
    const { corr, lag } = similarity(reference, pcm);
    expect(corr).toBeGreaterThan(0.9);
    expect(Math.abs(lag)).toBeLessThanOrEqual(16);
  });

  it('decodes stereo WebM/Opus to a mono mix', async () => {
    const stereoWav = path.join(dir, 'stereo-speech.wav');
    await ffmpegConvert(speechWav, stereoWav, ['-ac', '2']);
    const webm = path.join(dir, 'stereo.webm');
    await toWebmOpus(stereoWav, webm, ['-ac', '2']);
    const pcm = await withoutFfmpeg(() => decodeToPcm16k(webm));
    expect(similarity(reference, pcm).corr).toBeGreaterThan(0.9);
  });

  it('decodes Ogg/Opus in-process too', async () => {
    const ogg = path.join(dir, 'speech.ogg');
    await toOggOpus(speechWav, ogg);
    const pcm = await withoutFfmpeg(() => decodeToPcm16k(ogg));
    expect(Math.abs(pcm.length - reference.length)).toBeLessThan(0.02 * SAMPLE_RATE);
    expect(similarity(reference, pcm).corr).toBeGreaterThan(0.9);
  });

  it('hands other formats to ffmpeg when it is installed', async () => {
    const mp3 = path.join(dir, 'speech.mp3');
    await ffmpegConvert(speechWav, mp3);
    const pcm = await decodeToPcm16k(mp3);
    expect(Math.abs(pcm.length - reference.length)).toBeLessThan(0.1 * SAMPLE_RATE);
    expect(similarity(reference, pcm, 1600).corr).toBeGreaterThan(0.8);
  });

  it('decodes WAV encodings it does not parse (ADPCM) through ffmpeg, and names ffmpeg when it is missing', async () => {
    const adpcm = path.join(dir, 'adpcm.wav');
    await ffmpegConvert(speechWav, adpcm, ['-c:a', 'adpcm_ms']);
    const pcm = await decodeToPcm16k(adpcm);
    expect(similarity(reference, pcm).corr).toBeGreaterThan(0.8);
    await withoutFfmpeg(() =>
      expect(decodeToPcm16k(adpcm)).rejects.toThrow('Cannot decode WAV audio (format 0x0002, 4-bit): ffmpeg is not installed'),
    );
  });

  it('sends WebM that is not Opus to ffmpeg, and says so when it is missing', async () => {
    const vorbis = path.join(dir, 'vorbis.webm');
    await ffmpegConvert(speechWav, vorbis, ['-c:a', 'libvorbis']);
    expect((await decodeToPcm16k(vorbis)).length).toBeGreaterThan(reference.length * 0.95);
    await withoutFfmpeg(() =>
      expect(decodeToPcm16k(vorbis)).rejects.toThrow('Cannot decode WebM audio that is not Opus: ffmpeg is not installed'),
    );
  });

  it('reports what ffmpeg says about undecodable input, without the file path', async () => {
    const junk = await writeFile('junk.m4a', Buffer.from('this is not audio at all '.repeat(20)));
    const error = await decodeToPcm16k(junk).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AudioFormatError);
    expect((error as Error).message).toMatch(/^ffmpeg could not decode the audio/);
    expect((error as Error).message).not.toContain(dir);
  });

  it('kills ffmpeg when the signal aborts', async () => {
    const controller = new AbortController();
    const mp3 = path.join(dir, 'speech.mp3');
    const pending = ffmpegDecode(mp3, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow();
  });

  it('caps what ffmpeg may return', async () => {
    const mp3 = path.join(dir, 'speech.mp3');
    await expect(ffmpegDecode(mp3, { maxSamples: 1000 })).rejects.toThrow('Audio is too long to transcribe');
  });
});

describe('decodeToPcm16k, given up while it reads', () => {
  it("rejects with the caller's own reason, not Node's generic AbortError", async () => {
    const file = path.join(dir, 'big.wav');
    await fs.writeFile(file, Buffer.alloc(8 * 1024 * 1024));
    const controller = new AbortController();
    const decoding = decodeToPcm16k(file, { signal: controller.signal });
    // The read has started: Node rejects it with "The operation was aborted" unless the reason is passed on.
    controller.abort(new Error('client closed the connection'));
    await expect(decoding).rejects.toThrow('client closed the connection');
  });
});
