// RIFF/WAVE parsing and writing. Parsing is strict about structure (a truncated or malformed file is a clear
// AudioFormatError, never garbage audio) and lenient about what real writers do: odd chunk order, extra
// chunks, WAVE_FORMAT_EXTENSIBLE, and the "unknown length" data size that streaming writers leave behind.
import { AudioFormatError } from './audio-error.js';

const MAX_CHANNELS = 64;
const MIN_SAMPLE_RATE = 1000;
const MAX_SAMPLE_RATE = 768_000;
// Streaming writers (ffmpeg to a pipe, some recorders) cannot seek back to fill in the data size.
const STREAMING_SIZES = new Set([0, 0xffffffff]);

const FORMAT_PCM = 0x0001;
const FORMAT_FLOAT = 0x0003;
const FORMAT_ALAW = 0x0006;
const FORMAT_MULAW = 0x0007;
const FORMAT_EXTENSIBLE = 0xfffe;

/** The WAV is well formed but its encoding (e.g. ADPCM) is not decoded here; ffmpeg may still do it. */
export class UnsupportedWavEncodingError extends AudioFormatError {}

export interface DecodedWav {
  sampleRate: number;
  channels: number;
  /** Mono mix of all channels, in [-1, 1]. */
  samples: Float32Array;
}

export function isWav(head: Uint8Array): boolean {
  return head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WAVE';
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

interface Format {
  tag: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bits: number;
}

function readFormat(view: DataView, offset: number, size: number): Format {
  if (size < 16) throw new AudioFormatError('Invalid WAV file: the fmt chunk is too short');
  let tag = view.getUint16(offset, true);
  const format: Format = {
    tag,
    channels: view.getUint16(offset + 2, true),
    sampleRate: view.getUint32(offset + 4, true),
    blockAlign: view.getUint16(offset + 12, true),
    bits: view.getUint16(offset + 14, true),
  };
  if (tag === FORMAT_EXTENSIBLE) {
    // The real format is the first two bytes of the SubFormat GUID, 24 bytes into the extension.
    if (size < 40) throw new AudioFormatError('Invalid WAV file: the extensible fmt chunk is too short');
    tag = view.getUint16(offset + 24, true);
    format.tag = tag;
  }
  return format;
}

function checkFormat(f: Format): void {
  if (f.channels < 1 || f.channels > MAX_CHANNELS) {
    throw new AudioFormatError(`Invalid WAV file: ${f.channels} channels`);
  }
  if (f.sampleRate < MIN_SAMPLE_RATE || f.sampleRate > MAX_SAMPLE_RATE) {
    throw new AudioFormatError(`Invalid WAV file: sample rate ${f.sampleRate} Hz`);
  }
  const supported =
    (f.tag === FORMAT_PCM && [8, 16, 24, 32].includes(f.bits)) ||
    (f.tag === FORMAT_FLOAT && (f.bits === 32 || f.bits === 64)) ||
    ((f.tag === FORMAT_ALAW || f.tag === FORMAT_MULAW) && f.bits === 8);
  if (!supported) {
    const name = `0x${f.tag.toString(16).padStart(4, '0')}`;
    throw new UnsupportedWavEncodingError(`Unsupported WAV encoding (format ${name}, ${f.bits}-bit)`);
  }
  if (f.blockAlign !== (f.bits / 8) * f.channels) {
    throw new AudioFormatError(`Invalid WAV file: block align ${f.blockAlign} does not match ${f.channels} x ${f.bits}-bit`);
  }
}

// G.711 expansions, as in the ITU reference: 8-bit code words to 16-bit linear values.
function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const exponent = (a & 0x70) >> 4;
  let magnitude = ((a & 0x0f) << 4) + 8;
  if (exponent !== 0) magnitude = (magnitude + 0x100) << (exponent - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function sampleReader(view: DataView, f: Format): (offset: number) => number {
  if (f.tag === FORMAT_FLOAT) {
    return f.bits === 32 ? (o) => view.getFloat32(o, true) : (o) => view.getFloat64(o, true);
  }
  if (f.tag === FORMAT_ALAW) return (o) => alawToLinear(view.getUint8(o)) / 32768;
  if (f.tag === FORMAT_MULAW) return (o) => mulawToLinear(view.getUint8(o)) / 32768;
  switch (f.bits) {
    case 8:
      return (o) => (view.getUint8(o) - 128) / 128; // 8-bit WAV is unsigned
    case 16:
      return (o) => view.getInt16(o, true) / 32768;
    case 24:
      return (o) => ((view.getInt8(o + 2) << 16) | (view.getUint8(o + 1) << 8) | view.getUint8(o)) / 8388608;
    default:
      return (o) => view.getInt32(o, true) / 2147483648;
  }
}

/** Parse a whole WAV file into a mono mix at its own sample rate. */
export function parseWav(bytes: Uint8Array): DecodedWav {
  if (!isWav(bytes)) throw new AudioFormatError('Invalid WAV file: no RIFF/WAVE header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: Format | undefined;
  let data: { offset: number; size: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length && !data) {
    const id = ascii(bytes, offset, 4);
    const declared = view.getUint32(offset + 4, true);
    const body = offset + 8;
    const available = bytes.length - body;
    if (id === 'data') {
      if (!format) throw new AudioFormatError('Invalid WAV file: the data chunk comes before the fmt chunk');
      if (declared > available && !STREAMING_SIZES.has(declared)) {
        throw new AudioFormatError(
          `WAV file is truncated: its data chunk declares ${declared} bytes but only ${available} are present`,
        );
      }
      data = { offset: body, size: STREAMING_SIZES.has(declared) ? available : declared };
      break;
    }
    if (declared > available) throw new AudioFormatError(`WAV file is truncated inside its "${id}" chunk`);
    if (id === 'fmt ') format = readFormat(view, body, declared);
    offset = body + declared + (declared & 1); // chunks are padded to an even length
  }
  if (!format) throw new AudioFormatError('Invalid WAV file: no fmt chunk');
  if (!data) throw new AudioFormatError('Invalid WAV file: no data chunk');
  checkFormat(format);

  const frames = Math.floor(data.size / format.blockAlign);
  const read = sampleReader(view, format);
  const bytesPerSample = format.bits / 8;
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    const frameStart = data.offset + i * format.blockAlign;
    for (let c = 0; c < format.channels; c++) sum += read(frameStart + c * bytesPerSample);
    const value = sum / format.channels;
    // Float files may hold NaN or out-of-range values; the model expects [-1, 1].
    samples[i] = Number.isFinite(value) ? Math.max(-1, Math.min(1, value)) : 0;
  }
  return { sampleRate: format.sampleRate, channels: format.channels, samples };
}

/** Encode mono float PCM as a 16-bit PCM WAV file. */
export function encodeWav16(samples: Float32Array, sampleRate: number): Buffer {
  const dataSize = samples.length * 2;
  const out = Buffer.alloc(44 + dataSize);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + dataSize, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(FORMAT_PCM, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(dataSize, 40);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] ?? 0));
    out.writeInt16LE(Math.round(s < 0 ? s * 32768 : s * 32767), 44 + i * 2);
  }
  return out;
}
