// A stored file as the agent gets it, by what its bytes are: an image as an image, an Office document as its
// Markdown, audio as its transcript, text as text; anything else only named.
import path from 'node:path';
import { officeFormat } from '../../office/index.js';
import { loadSttConfig, transcribeFile } from '../../speech/index.js';
import { imageMime, looksLikeText, SNIFF_BYTES } from '../../workspace/file-kind.js';
import type { ChatAttachment } from '../../core/wire.js';
import { officeMarkdownIn } from '../office-markdown.js';
import type { ContentPart } from '../types.js';
import type { Budget } from './budget.js';
import { imageRead } from './image.js';
import { closeOpened, openUnder, readAt } from './open.js';
import { count, plural, ready, textSummary, unreadable } from './summary.js';
import { readTextFor } from './text.js';
import type { AttachmentRead, InputOptions } from './types.js';
import { attachmentName, describe, header } from './words.js';

export { MAX_IMAGE_BYTES } from './image.js';
const AUDIO_EXTENSIONS = new Set(['.webm', '.ogg', '.wav', '.mp3', '.m4a']);

function isAudio(name: string, mime: string): boolean {
  return mime.startsWith('audio/') || AUDIO_EXTENSIONS.has(path.extname(name).toLowerCase());
}

async function defaultTranscribe(stateDir: string, file: string, filename: string, signal?: AbortSignal): Promise<string> {
  const result = await transcribeFile(loadSttConfig(stateDir), file, { filename, ...(signal ? { signal } : {}) });
  if (!result.success) throw new Error(result.error ?? 'transcription failed');
  return result.transcript ?? '';
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export async function fileRead(a: ChatAttachment & { filename?: string; mime?: string; size?: number; decompressed_from?: string }, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const name = attachmentName(a);
  const mime = typeof a.mime === 'string' ? a.mime : '';
  const text = (t: string): ContentPart[] => [{ type: 'text', text: t }];
  const office = officeFormat(name) !== null || officeFormat(a.path) !== null;
  // An Office file's sidecar is read and written beside it, in the folder this walk opens (office-markdown.ts).
  const opened = await openUnder(opts.roots, a.path, office);
  if (!opened) {
    return { parts: text(describe(name, mime, a.size, a.path, 'not readable from the attachment folder')), summary: unreadable('not readable from the attachment folder') };
  }
  try {
    const head = await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES));
    const image = imageMime(head);
    if (image && (mime.startsWith('image/') || (a as { is_image?: boolean }).is_image)) {
      return await imageRead(opened, name, mime, image, a.path, budget, opts);
    }
    if (office) {
      try {
        const format = officeFormat(a.path);
        if (!format || !opened.dir) throw new Error('not an Office file by its stored name');
        const markdown = await officeMarkdownIn(opened.dir, opened.name, opened.handle, format);
        opts.onAttachmentText?.(a.path, markdown);
        const sent = Math.min(markdown.length, budget.left);
        return { parts: text(header(name, 'document') + budget.take(markdown, name)), summary: textSummary(sent, markdown.length) };
      } catch {
        return { parts: text(describe(name, mime, opened.size, a.path, 'its text could not be extracted')), summary: unreadable('its text could not be extracted: the file may be damaged or encrypted') };
      }
    }
    if (isAudio(name, mime)) {
      try {
        const transcript = opts.transcribe
          ? await opts.transcribe(a.path, name)
          : opts.stateDir
            ? await defaultTranscribe(opts.stateDir, a.path, name, opts.signal)
            : undefined;
        if (transcript !== undefined) {
          opts.onAttachmentText?.(a.path, transcript);
          const sent = Math.min(transcript.length, budget.left);
          const whole = textSummary(sent, transcript.length);
          return {
            parts: text(header(name, 'audio, transcript of') + budget.take(transcript, name)),
            summary: whole.state === 'ready' ? ready(`transcript, ${plural(words(transcript), 'word')}`) : whole,
          };
        }
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        return { parts: text(describe(name, mime, opened.size, a.path, 'it could not be transcribed')), summary: unreadable('it could not be transcribed') };
      }
    }
    if (looksLikeText(head)) {
      const read = await readTextFor(opened, budget, name, typeof a.decompressed_from === 'string' ? a.decompressed_from : undefined);
      return { parts: text(read.text), summary: read.summary };
    }
    return { parts: text(describe(name, mime, opened.size, a.path)), summary: unreadable(`${count(opened.size)} bytes the agent cannot read: only its name is sent`) };
  } finally {
    await closeOpened(opened);
  }
}
