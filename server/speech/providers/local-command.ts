// The local_command provider: a local recognizer (e.g. pocketsphinx_continuous -infile {input}) that wants
// 16 kHz mono WAV. The upload is converted first (in-process for WAV/WebM/Ogg-Opus, ffmpeg otherwise) into
// a private temporary directory that is always removed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeToPcm16k, writeWav16k } from '../audio.js';
import { runCommand } from '../run-command.js';
import { assertSucceeded } from './command-output.js';
import type { ProviderRunOptions, TranscribeResult } from './types.js';

const TEMP_PREFIX = 'satchel-stt-';
const CONVERTED_NAME = 'audio-16k.wav';

/** Recognizers print one line per utterance; dictation wants one running text. */
function joinUtterances(stdout: string): string {
  return stdout
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export async function transcribeWithLocalCommand(
  argv: readonly string[],
  filePath: string,
  opts: ProviderRunOptions & { timeoutMs: number },
): Promise<TranscribeResult> {
  const pcm = await decodeToPcm16k(filePath, { signal: opts.signal });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), TEMP_PREFIX));
  try {
    const wav = path.join(dir, CONVERTED_NAME);
    await writeWav16k(pcm, wav);
    const result = await runCommand(argv, { input: wav, timeoutMs: opts.timeoutMs, signal: opts.signal });
    assertSucceeded(argv[0]!, result);
    return { success: true, transcript: joinUtterances(result.stdout) };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
