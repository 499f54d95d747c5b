// An image as the agent gets it: downscaled the way MCP hands images out (server/image/downscale.ts), followed by
// the text on-device OCR finds in it (server/ocr/), so a screenshot of an error or a photo of a page reaches a
// model that cannot see, or sees poorly, as words too (issue 25). The text draws from the turn's budget.
import { createHash } from 'node:crypto';
import { ImageError, imageForAgent } from '../../image/downscale.js';
import { OcrError, ocrEngine, type RecognizedText } from '../../ocr/engine.js';
import type { Budget } from './budget.js';
import { readAt, type Opened } from './open.js';
import { count, partial, plural, ready, unreadable } from './summary.js';
import { textPart, type AttachmentRead, type InputOptions, type Part } from './types.js';
import { describe, toldWhere } from './words.js';

/** The largest image sent inline (agent.md). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export function ocrHeader(name: string): string {
  return `Text recognized in "${name}" (on-device OCR):\n`;
}

/** Recognized texts kept by the image's SHA-256: the chip's summary and the turn read the same attachment, and
 *  a page takes seconds to recognize. An entry is a few KiB of text; the oldest go first. */
export const OCR_CACHE_ENTRIES = 64;
const recognized = new Map<string, RecognizedText>();

/** The words OCR finds in `bytes`, or none when it fails (the image is still sent; the person still sees it). */
export async function recognize(bytes: Buffer, key = createHash('sha256').update(bytes).digest('hex')): Promise<RecognizedText> {
  const known = recognized.get(key);
  if (known) return known;
  let found: RecognizedText;
  try {
    found = await ocrEngine().recognizeImage(bytes);
  } catch (err) {
    if (!(err instanceof OcrError)) throw err;
    // Not kept: a recognition that ran out of time on a busy machine may succeed on the next read.
    return { text: '', words: 0 };
  }
  recognized.set(key, found);
  if (recognized.size > OCR_CACHE_ENTRIES) recognized.delete(recognized.keys().next().value!);
  return found;
}

/** `sniffed` is the type the file's first bytes say it is; `where` the path the turn named it by. */
export async function imageRead(opened: Opened, name: string, mime: string, sniffed: string, where: string, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const from = { file: name };
  const text = (t: string): Part[] => [textPart(t, from)];
  if (opened.size > MAX_IMAGE_BYTES) {
    const limit = `${MAX_IMAGE_BYTES / (1024 * 1024)} MiB`;
    return { kind: 'image', parts: text(describe(name, mime, opened.size, toldWhere(where, opts), `over the ${limit} image limit`)), summary: unreadable(`image over the ${limit} limit: make it smaller`) };
  }
  const bytes = await readAt(opened.handle, opened.size);
  const key = createHash('sha256').update(bytes).digest('hex');
  // The OCR worker's start and model load (a second or more) overlap the downscale below, when it will be needed.
  if (!recognized.has(key)) ocrEngine().warm();
  let image;
  try {
    image = await imageForAgent(bytes);
  } catch (err) {
    if (!(err instanceof ImageError)) throw err;
    return { kind: 'image', parts: text(describe(name, mime, opened.size, toldWhere(where, opts), `not sent: ${err.message}`)), summary: unreadable(`${err.message}: only its name is sent`) };
  }
  const intro = textPart(`Attached image "${name}":`, from);
  if (!image) {
    // This build has no image library (downscale.ts): the stored bytes, within MAX_IMAGE_BYTES, and no OCR.
    return { kind: 'image', parts: [intro, { type: 'image', mime: sniffed, data: bytes.toString('base64'), from }], summary: ready('image') };
  }
  const parts: Part[] = [intro, { type: 'image', mime: image.mime, data: image.data.toString('base64'), from }];
  const sentAt = `image, sent at ${image.width}×${image.height}`;
  const found = await recognize(bytes, key);
  opts.signal?.throwIfAborted();
  if (found.words === 0) return { kind: 'image', parts, summary: ready(sentAt) };
  opts.onAttachmentText?.(where, found.text);
  const sent = Math.min(found.text.length, budget.left);
  parts.push(textPart(ocrHeader(name) + budget.take(found.text, name), from));
  const words = `${plural(found.words, 'word')} of text recognized`;
  if (sent >= found.text.length) return { kind: 'image', parts, summary: ready(`${sentAt}, ${words}`) };
  return { kind: 'image', parts, summary: partial(`${sentAt}, ${words}, cut at ${count(sent)} of ${count(found.text.length)} characters`) };
}
