// What a file is, from its first bytes: the one sniffer of the server (previews, the raw route, what a turn
// sends the agent, what MCP returns). The raster image formats browsers show (by their signatures), PDF, text
// (UTF-8, UTF-16, Windows-1252/ISO-8859-1: text-encoding.ts) and everything else binary. A name alone never makes a file
// an image: `photo.png` holding text is text, and the raw route then never calls it image/png.
import path from 'node:path';
import { decodeLenient, decodeStrict, SNIFF_BYTES, sniffEncoding, type TextEncodingName } from './text-encoding.js';

export { SNIFF_BYTES };
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
 * `bytes` as text, or null when they are not text (text-encoding.ts: UTF-8, UTF-16, Windows-1252/ISO-8859-1).
 * `cut`: the bytes are the start of a longer file, so a character split at the end is dropped rather than taken
 * as a sign of binary.
 */
export function decodeText(bytes: Buffer, cut = false): DecodedText | null {
  const sniffed = sniffEncoding(bytes, cut);
  const text = sniffed && decodeStrict(bytes, sniffed, cut);
  return sniffed && text !== undefined ? { encoding: sniffed.encoding, text } : null;
}

/** Text by content: `head`, the start of a file, decodes as text (decodeText, a character cut at the end
 *  allowed). */
export function looksLikeText(head: Buffer): boolean {
  return decodeText(head.subarray(0, SNIFF_BYTES), true) !== null;
}

/**
 * `bytes`, the start of a file (or all of it) that looksLikeText judged text, decoded by the encoding it shows
 * (its byte order mark dropped; the first non-ASCII byte, wherever it is, telling UTF-8 from Windows-1252); what
 * does not decode further on becomes U+FFFD rather than failing the whole read.
 */
export function decodeFileText(bytes: Buffer): DecodedText {
  const sniffed = sniffEncoding(bytes, true) ?? { encoding: 'utf-8', bom: 0 };
  return { encoding: sniffed.encoding, text: decodeLenient(bytes, sniffed) };
}

/** decodeFileText's text alone. */
export function textOf(bytes: Buffer): string {
  return decodeFileText(bytes).text;
}

/** SVG is text, shown as an image: by its name, and only if its start is text that opens an <svg>. */
export function isSvg(name: string, head: Buffer): boolean {
  if (path.extname(name).toLowerCase() !== '.svg') return false;
  const decoded = decodeText(head, true);
  return decoded !== null && /<svg[\s>]/i.test(decoded.text);
}
