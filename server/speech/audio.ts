// Audio files → 16 kHz mono Float32 PCM, the speech model's input. The format is sniffed from the bytes, not
// the name: WAV, WebM/Opus (Chromium's MediaRecorder) and Ogg/Opus are decoded in-process, so dictation works
// without ffmpeg; anything else goes to ffmpeg when it is installed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { AudioFormatError, AudioTooLongError } from './audio-error.js';
import { FfmpegMissingError, ffmpegDecode } from './ffmpeg.js';
import { demuxOgg, isOgg } from './ogg.js';
import { decodeOpus, isOpusHead, parseOpusHead, type OpusHead } from './opus.js';
import { resample } from './resample.js';
import { encodeWav16, isWav, parseWav, UnsupportedWavEncodingError } from './wav.js';
import { demuxWebm, isWebm } from './webm.js';

export { AudioFormatError, AudioTooLongError } from './audio-error.js';

export const SAMPLE_RATE = 16000;
/** Longest audio we decode and transcribe (about 2 minutes of CPU at the measured real-time factor). */
export const MAX_AUDIO_SECONDS = 30 * 60;
/** Larger than any upload the server accepts; a guard for direct callers, checked before reading. */
const MAX_FILE_BYTES = 512 * 1024 * 1024;
const MAX_SAMPLES = MAX_AUDIO_SECONDS * SAMPLE_RATE;
const OPUS_CODEC_ID = 'A_OPUS';

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('Aborted');
}

function describe(filePath: string, label?: string): string {
  if (label) return label;
  const ext = path.extname(filePath).toLowerCase();
  return ext ? `${ext} audio` : 'this audio format';
}

/** Anything we cannot decode ourselves: ffmpeg, or a clear message naming what is missing. */
async function viaFfmpeg(filePath: string, what: string, signal?: AbortSignal): Promise<Float32Array> {
  try {
    return await ffmpegDecode(filePath, { signal, maxSamples: MAX_SAMPLES });
  } catch (err) {
    if (err instanceof FfmpegMissingError) throw new AudioFormatError(`Cannot decode ${what}: ffmpeg is not installed`);
    throwIfAborted(signal);
    throw err;
  }
}

function decodeWav(bytes: Uint8Array): Float32Array {
  const wav = parseWav(bytes);
  if (wav.samples.length / wav.sampleRate > MAX_AUDIO_SECONDS) throw new AudioTooLongError(MAX_AUDIO_SECONDS);
  return resample(wav.samples, wav.sampleRate, SAMPLE_RATE);
}

async function decodeWebm(bytes: Uint8Array): Promise<Float32Array | undefined> {
  const track = demuxWebm(bytes);
  if (track.codecId !== OPUS_CODEC_ID) return undefined;
  // CodecPrivate is the OpusHead; a writer that omitted it leaves us the track's channel count.
  const head: OpusHead = isOpusHead(track.codecPrivate)
    ? parseOpusHead(track.codecPrivate as Uint8Array)
    : { channels: Math.min(2, track.channels), preSkip: 0, gainDb: 0, mappingFamily: 0 };
  return decodeOpus(track.frames, head, MAX_SAMPLES);
}

async function decodeOggOpus(bytes: Uint8Array): Promise<Float32Array | undefined> {
  const packets = demuxOgg(bytes);
  if (!isOpusHead(packets[0])) return undefined; // Vorbis, FLAC, Speex…
  // Packet 1 is OpusTags (metadata); audio starts at packet 2.
  return decodeOpus(packets.slice(2), parseOpusHead(packets[0] as Uint8Array), MAX_SAMPLES);
}

/** Decode an audio file to 16 kHz mono Float32 PCM. See the module comment for the formats. */
export async function decodeToPcm16k(filePath: string, opts: { signal?: AbortSignal } = {}): Promise<Float32Array> {
  const { signal } = opts;
  throwIfAborted(signal);
  const stat = await fs.stat(filePath);
  if (stat.size === 0) throw new AudioFormatError('The audio file is empty');
  if (stat.size > MAX_FILE_BYTES) throw new AudioFormatError('The audio file is too large');
  // An abort during the read rejects with Node's generic AbortError ("The operation was aborted"): the caller's
  // own reason (a closed connection, a stop) is what it asked to be told.
  const bytes = new Uint8Array(
    await fs.readFile(filePath, { signal }).catch((err: unknown) => {
      throwIfAborted(signal);
      throw err;
    }),
  );
  throwIfAborted(signal);

  let pcm: Float32Array | undefined;
  let what: string | undefined;
  if (isWav(bytes)) {
    try {
      pcm = decodeWav(bytes);
    } catch (err) {
      if (!(err instanceof UnsupportedWavEncodingError)) throw err;
      what = `WAV audio ${err.message.replace(/^Unsupported WAV encoding /, '')}`;
    }
  } else if (isWebm(bytes)) {
    pcm = await decodeWebm(bytes);
    what = 'WebM audio that is not Opus';
  } else if (isOgg(bytes)) {
    pcm = await decodeOggOpus(bytes);
    what = 'Ogg audio that is not Opus';
  }
  pcm ??= await viaFfmpeg(filePath, describe(filePath, what), signal);
  throwIfAborted(signal);
  if (pcm.length === 0) throw new AudioFormatError('The audio file holds no audio');
  return pcm;
}

/** Write 16 kHz mono PCM as a 16-bit WAV file (temp + rename: never a half-written file). */
export async function writeWav16k(pcm: Float32Array, filePath: string): Promise<void> {
  const temp = `${filePath}.${process.pid}.${Date.now()}.tmp`;
  try {
    await fs.writeFile(temp, encodeWav16(pcm, SAMPLE_RATE));
    await fs.rename(temp, filePath);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}
