// Optional fallback decoder for formats we do not parse ourselves (mp3, m4a, flac, ADPCM WAV…): the system's
// ffmpeg, run with an argument array (no shell), a time limit and a cap on what it may print.
import { spawn } from 'node:child_process';
import { sanitizeErrorText } from '../core/errors.js';
import { AudioFormatError, AudioTooLongError } from './audio-error.js';

const FFMPEG_TIMEOUT_MS = 120_000;
/** Default cap on decoded audio (16 kHz mono float32 is 64 000 bytes per second): one hour. */
const DEFAULT_MAX_SAMPLES = 16_000 * 3600;
const MAX_STDERR_BYTES = 8 * 1024;

/** ffmpeg could not be started because it is not installed (not on PATH). */
export class FfmpegMissingError extends Error {}

/** Decode any file ffmpeg understands to 16 kHz mono float PCM. */
export function ffmpegDecode(filePath: string, opts: { signal?: AbortSignal; command?: string; maxSamples?: number } = {}): Promise<Float32Array> {
  return new Promise((resolve, reject) => {
    const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', filePath, '-vn', '-ac', '1', '-ar', '16000', '-f', 'f32le', 'pipe:1'];
    const child = spawn(opts.command ?? 'ffmpeg', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
      timeout: FFMPEG_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      windowsHide: true,
    });
    const maxBytes = (opts.maxSamples ?? DEFAULT_MAX_SAMPLES) * 4;
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: Error | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        failure ??= new AudioTooLongError((opts.maxSamples ?? DEFAULT_MAX_SAMPLES) / 16_000);
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') failure ??= new FfmpegMissingError('ffmpeg is not installed');
      else failure ??= err;
    });
    child.on('close', (code, signal) => {
      if (failure) return reject(failure);
      if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error('Aborted'));
      if (signal) return reject(new AudioFormatError(`ffmpeg did not finish decoding the audio (${signal})`));
      if (code !== 0) {
        // Its last line says why; it names the (temporary) input path, which a client must not see.
        const detail = sanitizeErrorText(stderr.trim().split('\n').pop()?.slice(0, 200) ?? '');
        return reject(new AudioFormatError(`ffmpeg could not decode the audio${detail ? `: ${detail}` : ''}`));
      }
      const bytes = Buffer.concat(chunks);
      const samples = new Float32Array(Math.floor(bytes.length / 4));
      for (let i = 0; i < samples.length; i++) samples[i] = bytes.readFloatLE(i * 4);
      resolve(samples);
    });
  });
}
