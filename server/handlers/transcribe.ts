// POST /api/transcribe and GET /api/transcribe/capability (spec-notes 4.5).
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { HandlerInput } from '../app.js';
import { HttpError } from '../core/errors.js';
import { sanitizeFilename, splitSuffix } from '../core/names.js';
import { log } from '../core/log.js';
import { parseMultipart } from '../http/multipart.js';
import { sendJson } from '../http/respond.js';
import { publicCapability, publicTranscript } from '../projections/index.js';
import { AudioFormatError } from '../speech/audio.js';
import { capabilityNow, currentSttConfig, SttUnavailableError, transcribeFile } from '../speech/index.js';
import type { CapabilityResponse, TranscribeResponse } from '../core/wire.js';

export const DEFAULT_AUDIO_SUFFIX = '.webm';
const UNAVAILABLE = 'Speech-to-text is unavailable on this server';
const FAILED = 'Transcription failed';
const MAX_SUFFIX_CHARS = 16;

export async function capability({ ctx, app }: HandlerInput): Promise<void> {
  let result: { available: boolean; provider: string };
  try {
    result = capabilityNow(currentSttConfig(app.config.stateDir));
  } catch (err) {
    log.warn('speech-to-text probe failed:', err);
    result = { available: false, provider: 'none' };
  }
  // Asked on every page load and by clients that poll it: the compact form the specification allows on hot paths.
  await sendJson(ctx, 200, publicCapability(result.available, result.provider) satisfies CapabilityResponse, { compact: true });
}

export async function transcribe({ ctx, app }: HandlerInput): Promise<void> {
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let audioPath: string | undefined;
  let transcript: string;
  try {
    const file = form.requireFile('file');
    const safeName = sanitizeFilename(file.filename);
    const suffix = splitSuffix(safeName)[1].toLowerCase();
    // The engines pick a decoder by suffix, so the temporary file keeps the upload's (default .webm).
    const ext = suffix && suffix.length <= MAX_SUFFIX_CHARS ? suffix : DEFAULT_AUDIO_SUFFIX;
    audioPath = path.join(app.stagingDir, `${randomBytes(12).toString('hex')}${ext}`);
    await fs.rename(file.stagedPath, audioPath);

    const cfg = currentSttConfig(app.config.stateDir);
    let result;
    try {
      result = await transcribeFile(cfg, audioPath, { signal: ctx.signal, filename: safeName });
    } catch (err) {
      if (err instanceof SttUnavailableError) throw new HttpError(503, UNAVAILABLE);
      if (err instanceof AudioFormatError) throw new HttpError(400, err.message);
      if (ctx.signal.aborted) throw err;
      log.error('transcription failed:', err);
      throw new HttpError(500, FAILED);
    }
    if (!result.success) {
      const text = result.error || FAILED;
      const lower = text.toLowerCase();
      throw new HttpError(lower.includes('unavailable') || lower.includes('not configured') ? 503 : 400, text);
    }
    transcript = (result.transcript ?? '').trim();
  } finally {
    if (audioPath) await fs.rm(audioPath, { force: true }).catch(() => {});
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicTranscript(transcript) satisfies TranscribeResponse);
}
