import { describe, expect, it } from 'vitest';
import { AudioFormatError } from './audio-error.js';
import { encodeWav16, parseWav, UnsupportedWavEncodingError } from './wav.js';

interface WavSpec {
  tag?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  blockAlign?: number;
  data: Uint8Array;
  dataSizeField?: number;
  extensibleSubFormat?: number;
  before?: Uint8Array[]; // extra chunks between fmt and data
  dataFirst?: boolean;
}

function chunk(id: string, body: Uint8Array, sizeField = body.length): Uint8Array {
  const out = Buffer.alloc(8 + body.length + (body.length & 1));
  out.write(id, 0, 'ascii');
  out.writeUInt32LE(sizeField, 4);
  out.set(body, 8);
  return out;
}

function buildWav(spec: WavSpec): Uint8Array {
  const channels = spec.channels ?? 1;
  const bits = spec.bits ?? 16;
  const rate = spec.rate ?? 16000;
  const ext = spec.extensibleSubFormat !== undefined;
  const fmt = Buffer.alloc(ext ? 40 : 16);
  fmt.writeUInt16LE(ext ? 0xfffe : (spec.tag ?? 1), 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 8);
  fmt.writeUInt16LE(spec.blockAlign ?? (channels * bits) / 8, 12);
  fmt.writeUInt16LE(bits, 14);
  if (ext) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(bits, 18);
    fmt.writeUInt16LE(spec.extensibleSubFormat as number, 24);
  }
  const fmtChunk = chunk('fmt ', fmt);
  const dataChunk = chunk('data', spec.data, spec.dataSizeField);
  const parts = spec.dataFirst ? [dataChunk, fmtChunk] : [fmtChunk, ...(spec.before ?? []), dataChunk];
  const body = Buffer.concat([Buffer.from('WAVE'), ...parts]);
  return Buffer.concat([Buffer.from('RIFF'), u32(body.length), body]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n, 0);
  return b;
}

function int16(values: number[]): Uint8Array {
  const b = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => b.writeInt16LE(v, i * 2));
  return b;
}

describe('parseWav', () => {
  it('reads 16-bit mono PCM at its own rate', () => {
    const wav = parseWav(buildWav({ rate: 22050, data: int16([0, 16384, -32768, 32767]) }));
    expect(wav.sampleRate).toBe(22050);
    expect(wav.channels).toBe(1);
    expect([...wav.samples]).toEqual([0, 0.5, -1, 32767 / 32768]);
  });

  it('mixes stereo to mono by averaging', () => {
    const wav = parseWav(buildWav({ channels: 2, data: int16([16384, 0, -16384, -16384]) }));
    expect([...wav.samples]).toEqual([0.25, -0.5]);
  });

  it('reads unsigned 8-bit PCM', () => {
    const wav = parseWav(buildWav({ bits: 8, data: Uint8Array.from([128, 192, 0, 255]) }));
    expect([...wav.samples]).toEqual([0, 0.5, -1, 127 / 128]);
  });

  it('reads 24-bit PCM, sign-extended', () => {
    const data = Uint8Array.from([0x00, 0x00, 0x40, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff]);
    const wav = parseWav(buildWav({ bits: 24, data }));
    expect([...wav.samples]).toEqual([0.5, -0.5, -1 / 8388608]);
  });

  it('reads 32-bit integer PCM', () => {
    const data = Buffer.alloc(8);
    data.writeInt32LE(1 << 30, 0);
    data.writeInt32LE(-(2 ** 31), 4);
    expect([...parseWav(buildWav({ bits: 32, data })).samples]).toEqual([0.5, -1]);
  });

  it('reads float32 and float64, clamping out-of-range values and zeroing NaN', () => {
    const f32 = Buffer.alloc(12);
    f32.writeFloatLE(0.25, 0);
    f32.writeFloatLE(3, 4);
    f32.writeFloatLE(NaN, 8);
    expect([...parseWav(buildWav({ tag: 3, bits: 32, data: f32 })).samples]).toEqual([0.25, 1, 0]);
    const f64 = Buffer.alloc(16);
    f64.writeDoubleLE(-0.125, 0);
    f64.writeDoubleLE(-7, 8);
    expect([...parseWav(buildWav({ tag: 3, bits: 64, data: f64 })).samples]).toEqual([-0.125, -1]);
  });

  it('reads WAVE_FORMAT_EXTENSIBLE by its sub-format', () => {
    const wav = parseWav(buildWav({ extensibleSubFormat: 1, channels: 2, data: int16([32767, 32767]) }));
    expect(wav.samples[0]).toBeCloseTo(32767 / 32768, 6);
  });

  it('decodes G.711 mu-law and A-law', () => {
    // 0xFF / 0xD5 are the codes for zero; 0x80 / 0xAA the largest positive values.
    expect([...parseWav(buildWav({ tag: 7, bits: 8, data: Uint8Array.from([0xff, 0x80]) })).samples]).toEqual([0, 32124 / 32768]);
    expect([...parseWav(buildWav({ tag: 6, bits: 8, data: Uint8Array.from([0xd5, 0xaa]) })).samples]).toEqual([8 / 32768, 32256 / 32768]);
  });

  it('skips unknown chunks, including odd-sized ones with their pad byte', () => {
    const list = chunk('LIST', Uint8Array.from([1, 2, 3])); // odd: padded to 4
    const wav = parseWav(buildWav({ data: int16([8192]), before: [list] }));
    expect([...wav.samples]).toEqual([0.25]);
  });

  it('accepts the unknown data size streaming writers leave, using the bytes present', () => {
    const wav = parseWav(buildWav({ data: int16([8192, 8192, 8192]), dataSizeField: 0xffffffff }));
    expect(wav.samples.length).toBe(3);
  });

  it('drops a partial last frame', () => {
    const data = Buffer.concat([int16([8192, 8192]), Uint8Array.from([7])]);
    expect(parseWav(buildWav({ channels: 1, data })).samples.length).toBe(2);
  });

  it('reports a truncated data chunk with both sizes', () => {
    const full = buildWav({ data: int16(Array(100).fill(1)) });
    expect(() => parseWav(full.subarray(0, full.length - 50))).toThrow(
      new AudioFormatError('WAV file is truncated: its data chunk declares 200 bytes but only 150 are present'),
    );
  });

  it('reports truncation inside a chunk before the data', () => {
    const full = buildWav({ data: int16([1]) });
    expect(() => parseWav(full.subarray(0, 30))).toThrow('WAV file is truncated inside its "fmt " chunk');
  });

  it('rejects files without RIFF/WAVE, fmt or data with clear texts', () => {
    expect(() => parseWav(Buffer.from('RIFX\0\0\0\0WAVEfmt '))).toThrow('Invalid WAV file: no RIFF/WAVE header');
    expect(() => parseWav(Buffer.concat([Buffer.from('RIFF'), u32(4), Buffer.from('WAVE')]))).toThrow('Invalid WAV file: no fmt chunk');
    const noData = Buffer.concat([Buffer.from('RIFF'), u32(28), Buffer.from('WAVE'), chunk('fmt ', Buffer.alloc(16))]);
    expect(() => parseWav(noData)).toThrow('Invalid WAV file: no data chunk');
    expect(() => parseWav(buildWav({ data: int16([1]), dataFirst: true }))).toThrow(
      'Invalid WAV file: the data chunk comes before the fmt chunk',
    );
  });

  it('rejects impossible headers', () => {
    expect(() => parseWav(buildWav({ channels: 0, blockAlign: 2, data: int16([1]) }))).toThrow('Invalid WAV file: 0 channels');
    expect(() => parseWav(buildWav({ rate: 10, data: int16([1]) }))).toThrow('Invalid WAV file: sample rate 10 Hz');
    expect(() => parseWav(buildWav({ blockAlign: 3, data: int16([1]) }))).toThrow(
      'Invalid WAV file: block align 3 does not match 1 x 16-bit',
    );
  });

  it('names unsupported encodings so the caller can hand them to ffmpeg', () => {
    const adpcm = buildWav({ tag: 2, bits: 4, blockAlign: 1, data: Uint8Array.from([1, 2]) });
    let error: unknown;
    try {
      parseWav(adpcm);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UnsupportedWavEncodingError);
    expect(error).toBeInstanceOf(AudioFormatError);
    expect((error as Error).message).toBe('Unsupported WAV encoding (format 0x0002, 4-bit)');
  });
});

describe('encodeWav16', () => {
  it('round-trips through parseWav within 16-bit precision, clamping out-of-range input', () => {
    const input = Float32Array.from([0, 0.5, -0.5, 1, -1, 2, -2, 0.123]);
    const bytes = encodeWav16(input, 16000);
    expect(bytes.length).toBe(44 + input.length * 2);
    const wav = parseWav(bytes);
    expect(wav.sampleRate).toBe(16000);
    const expected = [0, 0.5, -0.5, 1, -1, 1, -1, 0.123];
    wav.samples.forEach((s, i) => expect(Math.abs(s - (expected[i] as number))).toBeLessThan(1 / 16384));
  });
});
