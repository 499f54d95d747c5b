// Text in the encodings files come in, made by a real tool (iconv: testing/encodings/README.md), is recognized
// and decoded; binaries (a PNG, a zip, gzip, random bytes) stay binary whatever single-byte reading could make of them.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildPng } from '../../e2e/helpers/png.js';
import { decodeFileText, decodeText, looksLikeText } from './file-kind.js';
import { decodeSingleByte, MAX_CONTROL_SHARE, SNIFF_BYTES } from './text-encoding.js';

const fixture = (name: string) => fs.readFileSync(new URL(`../workspace/testing/encodings/${name}`, import.meta.url));
const CSV = fixture('source-utf8.csv').toString('utf8');
const LOG = fixture('source-latin1.txt').toString('utf8');

/** A seeded generator (mulberry32): the same "random" bytes on every run. */
function randomBytes(seed: number, length: number): Buffer {
  let a = seed;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return out;
}

describe('legacy and mark-less encodings', () => {
  it('reads a CSV iconv wrote in Windows-1252 (€, curly quotes, dashes, umlauts)', () => {
    const bytes = fixture('prices-windows-1252.csv');
    expect(looksLikeText(bytes)).toBe(true);
    expect(decodeText(bytes)).toEqual({ encoding: 'windows-1252', text: CSV });
    expect(decodeFileText(bytes)).toEqual({ encoding: 'windows-1252', text: CSV });
  });

  it('reads a log iconv wrote in ISO-8859-1, and names it so', () => {
    const bytes = fixture('server-iso-8859-1.txt');
    expect(decodeText(bytes)).toEqual({ encoding: 'iso-8859-1', text: LOG });
    expect(decodeFileText(bytes).text).toBe(LOG);
  });

  it('reads UTF-16 LE and BE without a byte order mark by their zero bytes', () => {
    expect(decodeText(fixture('prices-utf-16le.csv'))).toEqual({ encoding: 'utf-16le', text: CSV });
    expect(decodeText(fixture('prices-utf-16be.csv'))).toEqual({ encoding: 'utf-16be', text: CSV });
    // Cut at an odd byte, as a read of a file's start may be.
    const cut = fixture('prices-utf-16le.csv').subarray(0, 101);
    expect(decodeText(cut, true)).toEqual({ encoding: 'utf-16le', text: CSV.slice(0, 50) });
  });

  it('is Windows-1252 exactly as the WHATWG table has it, all 256 bytes', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    // The standard's 0x80-0x9F (index-windows-1252), the five undefined bytes left as C1 controls.
    const high = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
    const expected = Array.from({ length: 256 }, (_, i) => (i >= 0x80 && i <= 0x9f ? high[i - 0x80]! : i));
    expect([...decodeSingleByte(all)].map((c) => c.codePointAt(0))).toEqual(expected);
  });

  it('lets the first non-ASCII byte decide, wherever it is: ASCII for 8 KiB, then a Latin-1 é', () => {
    const bytes = Buffer.concat([Buffer.alloc(SNIFF_BYTES * 2, 'a'), Buffer.from([0xe9])]);
    expect(decodeText(bytes)).toEqual({ encoding: 'iso-8859-1', text: `${'a'.repeat(SNIFF_BYTES * 2)}é` });
    // UTF-8 first: a bad byte further on is damage (U+FFFD for the agent), not another encoding.
    const utf8 = Buffer.concat([Buffer.from('é '), Buffer.from([0xe9])]);
    expect(decodeFileText(utf8)).toEqual({ encoding: 'utf-8', text: 'é \ufffd' });
    expect(decodeText(utf8)).toBeNull();
  });

  it('keeps a Shift_JIS log text (garbled, not recognized), so the key in it is readable to the redactor', () => {
    const decoded = decodeText(fixture('app-shift_jis.log.txt'));
    expect(decoded?.encoding).toBe('windows-1252');
    expect(decoded?.text).toContain('token=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n');
  });
});

describe('what stays binary', () => {
  it('a PNG, a zip of text, gzip and random bytes', () => {
    const png = buildPng(16, 16, (x, y) => [x * 16, y * 16, 128]);
    const zip = fixture('notes.zip');
    const gz = zlib.gzipSync(Buffer.from(CSV.repeat(20)));
    for (const [what, bytes] of [['png', png], ['zip', zip], ['gzip', gz]] as const) {
      expect(looksLikeText(bytes), what).toBe(false);
      expect(decodeText(bytes), what).toBeNull();
    }
    for (let seed = 1; seed <= 200; seed++) {
      for (const length of [64, 1000, SNIFF_BYTES]) expect(looksLikeText(randomBytes(seed, length)), `seed ${seed}, ${length} bytes`).toBe(false);
    }
  });

  it('single-byte text with a NUL, or more control characters than MAX_CONTROL_SHARE', () => {
    const text = Buffer.from('caf\xe9 '.repeat(40), 'latin1'); // 200 bytes
    expect(decodeText(text)?.encoding).toBe('iso-8859-1');
    expect(decodeText(Buffer.concat([text, Buffer.from([0])]))).toBeNull();
    const controls = Math.floor(text.length * MAX_CONTROL_SHARE);
    expect(decodeText(Buffer.concat([text, Buffer.alloc(controls, 0x01)]))?.encoding).toBe('iso-8859-1');
    expect(decodeText(Buffer.concat([text, Buffer.alloc(controls + 1, 0x01)]))).toBeNull();
    // Tabs, line ends, form feeds, a DOS end-of-file mark and colour escapes are text.
    expect(decodeText(Buffer.from('a\tb\r\n\f\x1b[31mrot\x1b[0m \xe9\x1a', 'latin1'))?.text).toBe('a\tb\r\n\f\x1b[31mrot\x1b[0m é\x1a');
  });

  it('UTF-16 guessed from zeros must read as text: little-endian integers do not', () => {
    const ints = Buffer.alloc(400);
    for (let i = 0; i < 200; i++) ints.writeUInt16LE(1 + (i % 31), i * 2); // 1-31, no U+0000: control characters
    expect(looksLikeText(ints)).toBe(false);
    expect(decodeText(Buffer.from('ab', 'utf16le'))).toBeNull(); // 2 code units: too few to tell
  });
});
