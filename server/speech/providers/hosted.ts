// OpenAI-compatible hosted transcription (OpenAI and Groq speak the same API): one multipart POST to
// `{baseUrl}/audio/transcriptions` with Node's own fetch. Every failure the service or the network causes
// becomes {success:false} with a short, redacted text; "unavailable" in it makes the handler answer 503.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mime from 'mime-types';
import { sanitizeErrorText } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { redact } from '../../redact/index.js';
import { decodeToPcm16k, writeWav16k } from '../audio.js';
import type { HostedConfig } from '../config.js';
import type { ProviderRunOptions, TranscribeResult } from './types.js';

/** Both services refuse uploads above 25 MB. Larger files are re-encoded as 16 kHz mono WAV first
 *  (32 KB/s, so about 13 minutes fit); longer audio is refused before any request is made. */
export const HOSTED_MAX_FILE_BYTES = 25 * 1024 * 1024;
const WAV_HEADER_BYTES = 44;
const WAV_BYTES_PER_SAMPLE = 2;
/** Uploads up to this size are sent from memory (a file-backed Blob streams measurably slower); larger
 *  ones stream from disk so memory stays bounded. A minute of browser dictation is about 250 KB. */
export const IN_MEMORY_UPLOAD_BYTES = 4 * 1024 * 1024;
/** A transcription reply is small JSON; a huge body is a misbehaving endpoint, not a transcript. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Service error texts are shown to the user: keep them to one short line. */
export const MAX_ERROR_TEXT_LENGTH = 200;
const TRANSCRIPTIONS_PATH = '/audio/transcriptions';
const DEFAULT_AUDIO_MIME = 'application/octet-stream';
/** mime-types says video/* for these containers; what we send is sound only. */
const AUDIO_MIME_OVERRIDES: Record<string, string> = { '.webm': 'audio/webm', '.mp4': 'audio/mp4' };

export type HostedName = 'openai' | 'groq';
export const HOSTED_LABELS: Record<HostedName, string> = { openai: 'OpenAI', groq: 'Groq' };

export interface HostedRunOptions extends ProviderRunOptions {
  language?: string;
  timeoutMs: number;
}

class ResponseTooLargeError extends Error {}

/** The services take ISO-639-1 codes: `pt-BR` → `pt`. */
function languageCode(language: string | undefined): string | undefined {
  return language?.split(/[-_]/)[0]?.toLowerCase() || undefined;
}

/** Service-provided text, made safe to show: no key, no credential-looking values, no paths, one line. */
function cleanServiceText(text: string, apiKey: string): string {
  let clean = text.split(apiKey).join('[REDACTED]');
  clean = sanitizeErrorText(redact(clean)).replace(/\s+/g, ' ').trim();
  return clean.length > MAX_ERROR_TEXT_LENGTH ? clean.slice(0, MAX_ERROR_TEXT_LENGTH - 1) + '…' : clean;
}

function serviceMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      const error = (parsed as { error?: unknown }).error;
      if (typeof error === 'string') return error;
      if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string')
        return (error as { message: string }).message;
      const message = (parsed as { message?: unknown }).message;
      if (typeof message === 'string') return message;
    }
  } catch {
    // Not JSON: the raw text is the message.
  }
  return body;
}

async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ResponseTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The file to upload: the original, or a 16 kHz mono WAV when the original is over the limit. */
async function prepareUpload(
  filePath: string,
  filename: string,
  tempDir: () => Promise<string>,
  signal: AbortSignal | undefined,
): Promise<{ path: string; name: string; size: number } | undefined> {
  const size = (await fs.promises.stat(filePath)).size;
  if (size <= HOSTED_MAX_FILE_BYTES) return { path: filePath, name: filename, size };
  const pcm = await decodeToPcm16k(filePath, { signal });
  if (WAV_HEADER_BYTES + pcm.length * WAV_BYTES_PER_SAMPLE > HOSTED_MAX_FILE_BYTES) return undefined;
  const wavPath = path.join(await tempDir(), 'audio.wav');
  await writeWav16k(pcm, wavPath);
  const wavSize = (await fs.promises.stat(wavPath)).size;
  return { path: wavPath, name: `${path.parse(filename).name || 'audio'}.wav`, size: wavSize };
}

export async function transcribeHosted(
  name: HostedName,
  settings: HostedConfig,
  filePath: string,
  opts: HostedRunOptions,
): Promise<TranscribeResult> {
  const label = HOSTED_LABELS[name];
  const apiKey = settings.apiKey;
  if (!apiKey) return { success: false, error: `${label} API key is not configured` };
  const unavailable = (why: string): TranscribeResult => ({ success: false, error: `${label} is unavailable (${why})` });

  let tempDir: string | undefined;
  const makeTempDir = async () => (tempDir ??= await fs.promises.mkdtemp(path.join(os.tmpdir(), 'satchel-stt-')));
  try {
    const upload = await prepareUpload(filePath, opts.filename || path.basename(filePath), makeTempDir, opts.signal);
    if (!upload) return { success: false, error: `Audio is too long for ${label} (max 25 MB)` };

    const ext = path.extname(upload.name).toLowerCase();
    const type = AUDIO_MIME_OVERRIDES[ext] ?? (mime.lookup(upload.name) || DEFAULT_AUDIO_MIME);
    const blob =
      upload.size <= IN_MEMORY_UPLOAD_BYTES
        ? new Blob([await fs.promises.readFile(upload.path)], { type })
        : await fs.openAsBlob(upload.path, { type });
    const form = new FormData();
    form.append('file', blob, upload.name);
    form.append('model', settings.model);
    const language = languageCode(opts.language);
    if (language) form.append('language', language);
    form.append('response_format', 'json');

    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    let status: number;
    let body: string;
    try {
      const res = await fetch(settings.baseUrl + TRANSCRIPTIONS_PATH, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
        body: form,
        signal,
      });
      status = res.status;
      body = await readBounded(res);
    } catch (err) {
      // The client went away: not the service's fault, let the handler see the abort.
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (timeout.aborted) return unavailable('timed out');
      if (err instanceof ResponseTooLargeError) return unavailable('oversized response');
      const cause = (err as { cause?: { code?: unknown } }).cause?.code;
      log.warn(`${label} transcription request failed:`, cleanServiceText(`${String(err)} ${cause ?? ''}`, apiKey));
      return unavailable('network error');
    }

    if (status === 401 || status === 403) return { success: false, error: `${label} rejected the API key` };
    if (status === 429) return { success: false, error: `${label} rate limit reached; try again later` };
    if (status >= 500) return unavailable(`HTTP ${status}`);
    if (status < 200 || status >= 300) {
      const message = cleanServiceText(serviceMessage(body), apiKey);
      return { success: false, error: message ? `${label}: ${message}` : `${label} refused the audio (HTTP ${status})` };
    }
    let text: unknown;
    try {
      text = (JSON.parse(body) as { text?: unknown }).text;
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string') return unavailable('unreadable response');
    return { success: true, transcript: text.trim() };
  } finally {
    if (tempDir) await fs.promises.rm(tempDir, { recursive: true, force: true });
  }
}
