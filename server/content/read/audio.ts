// Audio as the agent gets it: its transcript by the configured speech-to-text (server/speech/), within the
// budget. Without a way to transcribe (no state folder, no transcriber given), only its name goes.
import fsp, { type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLimiter } from '../../core/limiter.js';
import { loadSttConfig, transcribeFile } from '../../speech/index.js';
import type { Budget } from './budget.js';
import { NO_SPEECH, plural, ready, textSummary, unreadable } from './summary.js';
import { textPart, type AttachmentRead, type InputOptions } from './types.js';
import { describe, toldWhere, header } from './words.js';

async function defaultTranscribe(stateDir: string, file: string, filename: string, signal?: AbortSignal): Promise<string> {
  const result = await transcribeFile(loadSttConfig(stateDir), file, { filename, ...(signal ? { signal } : {}) });
  if (!result.success) throw new Error(result.error ?? 'transcription failed');
  return result.transcript ?? '';
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * Bytes of an audio file handed to the transcriber at most: more than any upload the server accepts (100 MiB by
 * default); a larger workspace file is said to be too large rather than read.
 */
export const MAX_TRANSCRIBED_BYTES = 256 * 1024 * 1024;
/** Transcriptions at once from a reader (the turn, MCP, the preview): each decodes a whole recording in memory. */
export const MAX_TRANSCRIPTIONS = 2;
const transcriptions = createLimiter(MAX_TRANSCRIPTIONS);
const COPY_CHUNK = 1024 * 1024;

/**
 * The transcript of the audio file open at `handle`, or undefined when nothing here can transcribe. Throws when
 * the transcription fails. The transcriber (ffmpeg, a hosted provider, the decoders) opens a path, so it is given
 * a private copy of the very file that was opened through the anchored walk, never the file's own path: a folder
 * swapped for a symlink meanwhile cannot send it another file (a kept-out recording, a key file to a hosted
 * provider).
 */
export async function transcriptOf(handle: FileHandle, size: number, name: string, opts: Pick<InputOptions, 'transcribe' | 'stateDir' | 'signal'>): Promise<string | undefined> {
  if (!opts.transcribe && !opts.stateDir) return undefined;
  if (size > MAX_TRANSCRIBED_BYTES) throw new Error(`audio larger than ${MAX_TRANSCRIBED_BYTES / (1024 * 1024)} MiB is not transcribed`);
  return transcriptions(async () => {
    opts.signal?.throwIfAborted();
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-audio-'));
    try {
      const copy = path.join(dir, `audio${path.extname(name).toLowerCase().replace(/[^.a-z0-9]/g, '')}`);
      await copyOpened(handle, size, copy);
      if (opts.transcribe) return await opts.transcribe(copy, name);
      return await defaultTranscribe(opts.stateDir!, copy, name, opts.signal);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
}

/** The first `size` bytes of `handle` (from its start) into a new file of mode 0600 at `to`. */
async function copyOpened(handle: FileHandle, size: number, to: string): Promise<void> {
  const out = await fsp.open(to, 'wx', 0o600);
  try {
    const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, Math.max(size, 1)));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - at), at);
      if (bytesRead === 0) break;
      await out.write(buffer, 0, bytesRead);
      at += bytesRead;
    }
  } finally {
    await out.close();
  }
}

export async function audioRead(handle: FileHandle, size: number, name: string, mime: string, where: string, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  let transcript: string | undefined;
  try {
    transcript = await transcriptOf(handle, size, name, opts);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { kind: 'audio', parts: [textPart(describe(name, mime, size, toldWhere(where, opts), 'it could not be transcribed'), { file: name })], summary: unreadable('it could not be transcribed') };
  }
  if (transcript === undefined) {
    return { kind: 'audio', parts: [textPart(describe(name, mime, size, toldWhere(where, opts), 'no speech-to-text to transcribe it'), { file: name })], summary: unreadable('audio with no speech-to-text to transcribe it: only its name is sent') };
  }
  opts.onAttachmentText?.(where, transcript);
  const sent = Math.min(transcript.length, budget.left);
  const whole = textSummary(sent, transcript.length, undefined, NO_SPEECH);
  return {
    kind: 'audio',
    parts: [textPart(header(name, 'audio, transcript of') + budget.take(transcript, name), { file: name })],
    summary: whole.state === 'ready' ? ready(`transcript, ${plural(words(transcript), 'word')}`) : whole,
  };
}
