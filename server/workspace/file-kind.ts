// What a file is, from its first bytes: the one sniffer of the server (previews, the raw route, what a turn
// sends the agent, what MCP returns). The raster image formats browsers show (by their signatures), PDF, text
// (UTF-8, or UTF-8/UTF-16 with a byte order mark) and everything else binary. A name alone never makes a file
// an image: `photo.png` holding text is text, and the raw route then never calls it image/png.
import path from 'node:path';
import type { TextEncodingName } from './preview-wire.js';

/** Bytes read from a file's start to tell its kind: every signature below, and enough text to judge it
 *  (a binary format shows a NUL or invalid UTF-8 well within this). */
export const SNIFF_BYTES = 8 * 1024;
/** A multi-byte UTF-8 character cut at the end of a read is at most this many bytes. */
const MAX_UTF8_TAIL = 3;
/** BMP's header is 14 bytes: a shorter file starting `BM` is text, not an image. */
const BMP_HEADER_BYTES = 14;

const startsWith = (b: Buffer, sig: number[], at = 0) => sig.every((byte, i) => b[at + i] === byte);
const ascii = (b: Buffer, at: number, text: string) => b.subarray(at, at + text.length).toString('latin1') === text;

/** The raster image type of `head`, by signature, or undefined. */
export function imageMime(head: Buffer): string | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return 'image/gif';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'image/webp';
  // ISO BMFF: a box size, then `ftyp` and the major brand.
  if (ascii(head, 4, 'ftyp') && (ascii(head, 8, 'avif') || ascii(head, 8, 'avis'))) return 'image/avif';
  if (ascii(head, 0, 'BM') && head.length >= BMP_HEADER_BYTES) return 'image/bmp';
  return undefined;
}

export function isPdf(head: Buffer): boolean {
  return ascii(head, 0, '%PDF-');
}

export interface DecodedText {
  encoding: TextEncodingName;
  text: string;
}

/**
 * `bytes` as text, or null when they are not text. `cut`: the bytes are the start of a longer file, so a
 * character split at the end is dropped rather than taken as a sign of binary.
 */
export function decodeText(bytes: Buffer, cut = false): DecodedText | null {
  if (startsWith(bytes, [0xff, 0xfe])) return utf16(bytes.subarray(2), 'utf-16le', cut);
  if (startsWith(bytes, [0xfe, 0xff])) return utf16(bytes.subarray(2), 'utf-16be', cut);
  const bom = startsWith(bytes, [0xef, 0xbb, 0xbf]);
  const body = bom ? bytes.subarray(3) : bytes;
  // NUL never appears in text a person reads; it is the quickest sign of a binary format.
  if (body.includes(0)) return null;
  const text = decodeUtf8(body, cut);
  return text === null ? null : { encoding: bom ? 'utf-8-bom' : 'utf-8', text };
}

/** Text by content: `head`, the start of a file, decodes as text (decodeText, a character cut at the end
 *  allowed). */
export function looksLikeText(head: Buffer): boolean {
  return decodeText(head.subarray(0, SNIFF_BYTES), true) !== null;
}

/**
 * `bytes`, the start of a file (or all of it) that looksLikeText judged text, decoded by the encoding its
 * start shows (its byte order mark dropped); what does not decode further on becomes U+FFFD rather than
 * failing the whole read.
 */
export function textOf(bytes: Buffer): string {
  const encoding = decodeText(bytes.subarray(0, SNIFF_BYTES), true)?.encoding ?? 'utf-8';
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(2));
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(encoding === 'utf-8-bom' ? bytes.subarray(3) : bytes);
}

function decodeUtf8(bytes: Buffer, cut: boolean): string | null {
  const decoder = () => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoder().decode(bytes);
  } catch {
    if (!cut) return null;
  }
  for (let drop = 1; drop <= MAX_UTF8_TAIL && drop < bytes.length; drop++) {
    try {
      return decoder().decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      // try one byte shorter
    }
  }
  return null;
}

function utf16(bytes: Buffer, encoding: 'utf-16le' | 'utf-16be', cut: boolean): DecodedText | null {
  // An odd byte at the end is half a code unit: only a cut read may leave one.
  const even = bytes.length % 2 === 0 ? bytes : cut ? bytes.subarray(0, bytes.length - 1) : null;
  if (!even) return null;
  try {
    const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(even);
    return { encoding, text };
  } catch {
    if (!cut || even.length < 2) return null;
    // A surrogate pair split by the cut: drop its first half.
    try {
      const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(even.subarray(0, even.length - 2));
      return { encoding, text };
    } catch {
      return null;
    }
  }
}

/** SVG is text, shown as an image: by its name, and only if its start is text that opens an <svg>. */
export function isSvg(name: string, head: Buffer): boolean {
  if (path.extname(name).toLowerCase() !== '.svg') return false;
  const decoded = decodeText(head, true);
  return decoded !== null && /<svg[\s>]/i.test(decoded.text);
}
