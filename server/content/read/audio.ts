// Audio as the agent gets it: its transcript by the configured speech-to-text (server/speech/), within the
// budget. Without a way to transcribe (no state folder, no transcriber given), only its name goes.
import { loadSttConfig, transcribeFile } from '../../speech/index.js';
import type { Budget } from './budget.js';
import { plural, ready, textSummary, unreadable } from './summary.js';
import { textPart, type AttachmentRead, type InputOptions } from './types.js';
import { describe, header } from './words.js';

async function defaultTranscribe(stateDir: string, file: string, filename: string, signal?: AbortSignal): Promise<string> {
  const result = await transcribeFile(loadSttConfig(stateDir), file, { filename, ...(signal ? { signal } : {}) });
  if (!result.success) throw new Error(result.error ?? 'transcription failed');
  return result.transcript ?? '';
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The transcript of the audio file at `where`, or undefined when nothing here can transcribe. Throws when the
 *  transcription fails. */
export async function transcriptOf(where: string, name: string, opts: Pick<InputOptions, 'transcribe' | 'stateDir' | 'signal'>): Promise<string | undefined> {
  if (opts.transcribe) return opts.transcribe(where, name);
  if (opts.stateDir) return defaultTranscribe(opts.stateDir, where, name, opts.signal);
  return undefined;
}

export async function audioRead(size: number, name: string, mime: string, where: string, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  let transcript: string | undefined;
  try {
    transcript = await transcriptOf(where, name, opts);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { kind: 'audio', parts: [textPart(describe(name, mime, size, where, 'it could not be transcribed'), { file: name })], summary: unreadable('it could not be transcribed') };
  }
  if (transcript === undefined) {
    return { kind: 'audio', parts: [textPart(describe(name, mime, size, where, 'no speech-to-text to transcribe it'), { file: name })], summary: unreadable('audio with no speech-to-text to transcribe it: only its name is sent') };
  }
  opts.onAttachmentText?.(where, transcript);
  const sent = Math.min(transcript.length, budget.left);
  const whole = textSummary(sent, transcript.length);
  return {
    kind: 'audio',
    parts: [textPart(header(name, 'audio, transcript of') + budget.take(transcript, name), { file: name })],
    summary: whole.state === 'ready' ? ready(`transcript, ${plural(words(transcript), 'word')}`) : whole,
  };
}
