// Which encoding a file's text is in, and that text decoded: the encodings people's files come in. UTF-8 (with or
// without a byte order mark), UTF-16 LE/BE (with a mark, or without one when its zero bytes show it), and the
// Western single-byte encodings: Windows-1252 (what Excel on Windows saves a CSV in, Notepad's "ANSI" on a Western
// system) and ISO-8859-1 (logs and files from older Unix tools). Other code pages (Windows-1250/1251, Shift_JIS,
// GBK, EUC-JP…) can only be told apart statistically, and a wrong guess garbles every letter; their bytes decode
// here as single-byte text (garbled letters, ASCII intact), which keeps them text (previewed, searchable, redacted)
// rather than binary served raw.
//
// Decoding is done here, not by TextDecoder('windows-1252'): Node's ICU-backed decoder maps 0x80-0x9F to C1
// controls in some releases (nodejs/node#59515; Node 20.20.2 here decodes 0x80 as U+0080, not €), and the table is
// the WHATWG Encoding Standard's 32 entries. ISO-8859-1 decodes the same way: its 0x80-0x9F are C1 controls that
// real text never holds, which is why the WHATWG standard (and every browser) reads `latin1` as Windows-1252.

import type { TextEncodingName } from '../workspace/preview-wire.js';

export type { TextEncodingName };

/** Bytes read from a file's start to tell its kind (file-kind.ts) and its encoding: every image signature,
 *  and enough text to judge it (a binary format shows a NUL or control bytes well within this). */
export const SNIFF_BYTES = 8 * 1024;
/**
 * UTF-16 without a byte order mark is recognized by its zero bytes: a character below U+0100 (all of ASCII and
 * Latin-1) has a zero high byte, so Western text has one in nearly every code unit, and Greek or Cyrillic text in
 * its spaces, digits and punctuation. At least this share of the code units must have it on the one side, and
 * none may be U+0000. CJK text without a mark has too few to be recognized; it stays binary (and is rare: Windows
 * tools write UTF-16 with a mark).
 */
export const MIN_UTF16_ZERO_SHARE = 0.3;
/** Fewer code units than this are not enough to see a pattern in: a short run of zeros is as likely a binary's. */
export const MIN_UTF16_UNITS = 4;
/**
 * An encoding guessed (no byte order mark, not valid UTF-8) decodes any bytes, so what says binary is control
 * characters: random or compressed bytes hold one in eight, text none. More than this share of the characters
 * (C0 controls other than TAB, LF, VT, FF, CR, SUB (a DOS end-of-file mark) and ESC (colour codes in logs), and
 * DEL; in UTF-16 also C1 controls) makes it binary.
 */
export const MAX_CONTROL_SHARE = 0.01;

/** Windows-1252's 0x80-0x9F (WHATWG index-windows-1252); the five it leaves undefined stay C1 controls. */
const WINDOWS_1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1a, 0x1b]);

const isControl = (code: number): boolean => (code < 0x20 && !ALLOWED_CONTROLS.has(code)) || (code >= 0x7f && code <= 0x9f);
/** Every byte's character in Windows-1252 (the table for 0x80-0x9F, the byte's own code point otherwise). */
const WINDOWS_1252 = Uint16Array.from({ length: 256 }, (_, b) => (b >= 0x80 && b <= 0x9f ? WINDOWS_1252_HIGH.charCodeAt(b - 0x80) : b));
/**
 * 1 where a byte is a control character in single-byte text: C0 (as isControl) and DEL, not 0x80-0x9F. Those are
 * Windows-1252's letters, and Windows-1252's five undefined bytes are lead bytes of Shift_JIS and GBK text, which
 * is then text (its ASCII, keys included, readable and redacted) rather than binary served raw. C0 alone tells
 * binaries: random bytes hold one in ten.
 */
const SINGLE_BYTE_CONTROL = Uint8Array.from({ length: 256 }, (_, b) => (b < 0x80 && isControl(b) ? 1 : 0));

export interface Sniffed {
  encoding: TextEncodingName;
  /** Bytes of byte order mark at the start, dropped before decoding. */
  bom: number;
}

const startsWith = (b: Uint8Array, sig: number[]) => sig.every((byte, i) => b[i] === byte);

/**
 * The encoding `bytes` (a file's start, or all of it) are in, if they are text at all by their first bytes: a
 * byte order mark; else the UTF-16 zero pattern in the first SNIFF_BYTES; else the first non-ASCII byte
 * decides: a valid UTF-8 sequence there makes the file UTF-8 (a bad byte further on is damage, not another
 * encoding), anything else single-byte. Undefined for bytes no reading makes text of (a NUL in the first
 * SNIFF_BYTES of what is not UTF-16). The bytes are judged whole by `decodeStrict`.
 */
export function sniffEncoding(bytes: Uint8Array, cut: boolean): Sniffed | undefined {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return { encoding: 'utf-8-bom', bom: 3 };
  if (startsWith(bytes, [0xff, 0xfe])) return { encoding: 'utf-16le', bom: 2 };
  if (startsWith(bytes, [0xfe, 0xff])) return { encoding: 'utf-16be', bom: 2 };
  const head = bytes.subarray(0, SNIFF_BYTES);
  const utf16 = utf16ByZeros(head);
  if (utf16) return { encoding: utf16, bom: 0 };
  // NUL never appears in text a person reads; it is the quickest sign of a binary format.
  if (head.includes(0)) return undefined;
  const first = firstNonAscii(bytes);
  if (first === -1 || startsUtf8Char(bytes, first, cut)) return { encoding: 'utf-8', bom: 0 };
  return { encoding: singleByteName(bytes, first), bom: 0 };
}

/** `bytes` decoded in `s`, or undefined when they are not text in it (invalid, a NUL, too many controls). */
export function decodeStrict(bytes: Uint8Array, s: Sniffed, cut: boolean): string | undefined {
  const body = bytes.subarray(s.bom);
  switch (s.encoding) {
    case 'utf-8':
    case 'utf-8-bom':
      if (body.includes(0)) return undefined;
      return fatalDecode('utf-8', body, cut);
    case 'utf-16le':
    case 'utf-16be': {
      const text = fatalDecode(s.encoding, body, cut);
      // A mark is the writer's word; a guess from zeros must also read as text.
      if (text === undefined || (s.bom === 0 && (text.includes('\0') || controlHeavy(text)))) return undefined;
      return text;
    }
    default: {
      if (body.includes(0)) return undefined;
      const { text, controls } = singleByte(body);
      return controls > body.length * MAX_CONTROL_SHARE ? undefined : text;
    }
  }
}

/** `bytes` decoded in `s` whatever they hold: what does not decode becomes U+FFFD. */
export function decodeLenient(bytes: Uint8Array, s: Sniffed): string {
  const body = bytes.subarray(s.bom);
  if (s.encoding === 'windows-1252' || s.encoding === 'iso-8859-1') return decodeSingleByte(body);
  return new TextDecoder(s.encoding === 'utf-8-bom' ? 'utf-8' : s.encoding, { ignoreBOM: true }).decode(body);
}

/** Single-byte Western text: Latin-1 for 0x00-0x7F and 0xA0-0xFF, Windows-1252's table for 0x80-0x9F. */
export function decodeSingleByte(bytes: Uint8Array): string {
  return singleByte(bytes).text;
}

/**
 * decodeSingleByte, counting the control characters (SINGLE_BYTE_CONTROL) on the way. Mapped to UTF-16 code units by the table and decoded natively:
 * a regular-expression replace of each 0x80-0x9F character took 190 ms for 10 MB.
 */
function singleByte(bytes: Uint8Array): { text: string; controls: number } {
  const units = new Uint16Array(bytes.length);
  let controls = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    units[i] = WINDOWS_1252[b]!;
    controls += SINGLE_BYTE_CONTROL[b]!;
  }
  // Buffer's UTF-16 decode, not TextDecoder's: 2.5× faster on 10 MB here (40 ms against 110).
  return { text: Buffer.from(units.buffer, 0, units.byteLength).toString('utf16le'), controls };
}

/** How the agent is told the encoding: nothing for UTF-8, the encoding's usual name otherwise. */
export function encodingLabel(encoding: TextEncodingName): string | undefined {
  return { 'utf-8': undefined, 'utf-8-bom': undefined, 'utf-16le': 'UTF-16LE', 'utf-16be': 'UTF-16BE', 'windows-1252': 'Windows-1252', 'iso-8859-1': 'ISO-8859-1' }[encoding];
}

function utf16ByZeros(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const units = head.length >> 1;
  if (units < MIN_UTF16_UNITS) return undefined;
  let zeroHigh = 0; // LE: the odd byte
  let zeroLow = 0; // LE: the even byte
  for (let i = 0; i + 1 < head.length; i += 2) {
    const lo = head[i]!;
    const hi = head[i + 1]!;
    if (lo === 0 && hi === 0) return undefined; // U+0000 is no character of text
    if (hi === 0) zeroHigh++;
    else if (lo === 0) zeroLow++;
  }
  if (zeroHigh >= units * MIN_UTF16_ZERO_SHARE && zeroHigh > zeroLow) return 'utf-16le';
  if (zeroLow >= units * MIN_UTF16_ZERO_SHARE && zeroLow > zeroHigh) return 'utf-16be';
  return undefined;
}

function firstNonAscii(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return i;
  return -1;
}

/** A UTF-8 character's length by its lead byte (0: not a lead byte). */
const utf8Length = (lead: number): number => (lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0);

/** A valid UTF-8 character starts at `at` (or, in a cut read, what the read holds of one is valid so far). */
function startsUtf8Char(bytes: Uint8Array, at: number, cut: boolean): boolean {
  const length = utf8Length(bytes[at]!);
  if (length === 0) return false;
  const end = at + length;
  if (end > bytes.length) {
    if (!cut) return false;
    for (let i = at + 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) !== 0x80) return false;
    return true;
  }
  return fatalDecode('utf-8', bytes.subarray(at, end), false) !== undefined;
}

/** ISO-8859-1 unless a byte in 0x80-0x9F shows Windows-1252's extra characters (€, curly quotes, dashes…). */
function singleByteName(bytes: Uint8Array, from: number): 'windows-1252' | 'iso-8859-1' {
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b >= 0x80 && b <= 0x9f) return 'windows-1252';
  }
  return 'iso-8859-1';
}

function controlHeavy(text: string): boolean {
  let controls = 0;
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) controls++;
  return controls > text.length * MAX_CONTROL_SHARE;
}

function fatalDecode(encoding: 'utf-8' | 'utf-16le' | 'utf-16be', bytes: Uint8Array, cut: boolean): string | undefined {
  const decode = (b: Uint8Array) => {
    try {
      return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(b);
    } catch {
      return undefined;
    }
  };
  const whole = decode(bytes);
  if (whole !== undefined || !cut) return whole;
  // A cut read may end inside a character: at most 3 bytes of UTF-8, or half a UTF-16 code unit and a lone
  // first half of a surrogate pair.
  const tails = encoding === 'utf-8' ? [1, 2, 3] : bytes.length % 2 === 1 ? [1, 3] : [2];
  for (const drop of tails) {
    if (drop >= bytes.length) break;
    const text = decode(bytes.subarray(0, bytes.length - drop));
    if (text !== undefined) return text;
  }
  return undefined;
}
