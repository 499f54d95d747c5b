// Test audio made on the spot with Debian's speech synthesizers (flite, espeak-ng) and, for browser-like
// WebM/Opus, ffmpeg. Nothing is downloaded: tests that need a missing tool skip and say which.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 60_000;

/** Sentences that read naturally and hold no digits (which a recognizer may write either way). */
export const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Please open the settings window and change the language to English.',
  'Can you tell me how long it takes to drive to the airport?',
  'She sells fresh bread and cheese at the market every morning.',
  'We should finish the report before the meeting starts tomorrow.',
  'The weather is cold today, so bring a warm jacket.',
  'My brother bought a new bicycle for his daughter.',
  'Turn off the lights when you leave the room.',
  'The train was late because of the heavy snow.',
  'I would like a cup of coffee with milk and sugar.',
  'Remember to water the plants in the garden.',
  'The library closes early on the weekend.',
] as const;

/** flite voices shipped by the Debian package. */
export const FLITE_VOICES = ['slt', 'kal', 'awb', 'rms', 'kal16'] as const;

/** The absolute path of `name` on PATH, or undefined. */
export function which(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Tools missing from `names`, for a test's skip reason. */
export function missingTools(...names: string[]): string[] {
  return names.filter((n) => !which(n));
}

export async function synthFlite(text: string, voice: string, outWav: string): Promise<void> {
  await run('flite', ['-voice', voice, '-t', text, '-o', outWav], { timeout: TOOL_TIMEOUT_MS });
}

export async function synthEspeak(text: string, voice: string, outWav: string): Promise<void> {
  await run('espeak-ng', ['-v', voice, '-w', outWav, text], { timeout: TOOL_TIMEOUT_MS });
}

/** Encode like Chromium's MediaRecorder does: Opus in WebM, 48 kHz. */
export async function toWebmOpus(inWav: string, outWebm: string, extra: string[] = []): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', inWav, '-c:a', 'libopus', '-b:a', '48k', '-ar', '48000', ...extra, '-f', 'webm', outWebm], {
    timeout: TOOL_TIMEOUT_MS,
  });
}

/** Opus in Ogg (what Firefox records, and voice-note apps send). */
export async function toOggOpus(inWav: string, outOgg: string): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', inWav, '-c:a', 'libopus', '-b:a', '48k', '-f', 'ogg', outOgg], {
    timeout: TOOL_TIMEOUT_MS,
  });
}

/** Any other format ffmpeg can write (mp3, flac…), picked by the output's extension. */
export async function ffmpegConvert(input: string, output: string, extra: string[] = []): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', input, ...extra, output], { timeout: TOOL_TIMEOUT_MS });
}

export function silence(seconds: number, sampleRate = 16000): Float32Array {
  return new Float32Array(Math.round(seconds * sampleRate));
}

export function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
