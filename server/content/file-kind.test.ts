// The one sniffer: image signatures (the union of what previews and the agent accept), text by content (UTF-8,
// UTF-16, Windows-1252/ISO-8859-1: text-encoding.test.ts has the encodings), decided on the first SNIFF_BYTES.
import { describe, expect, it } from 'vitest';
import { imageMime, looksLikeText, SNIFF_BYTES, textOf } from './file-kind.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-and-some-pixels\x00\x01\x02')]);
const AVIF = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypavif'), Buffer.alloc(20, 0)]);
const utf16 = (text: string, be: boolean): Buffer => {
  const le = Buffer.from(text, 'utf16le');
  return be ? Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]) : Buffer.concat([Buffer.from([0xff, 0xfe]), le]);
};

describe('sniffing', () => {
  it('knows the five image formats by their bytes', () => {
    expect(imageMime(PNG)).toBe('image/png');
    expect(imageMime(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(imageMime(Buffer.from('GIF89a......'))).toBe('image/gif');
    expect(imageMime(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(imageMime(Buffer.from('BM' + '\0'.repeat(20)))).toBe('image/bmp');
    expect(imageMime(Buffer.from('<svg/>'))).toBeUndefined();
  });
  it('knows AVIF too, and a BMP header shorter than 14 bytes is not one', () => {
    expect(imageMime(AVIF)).toBe('image/avif');
    expect(imageMime(Buffer.from('BM short'))).toBeUndefined();
  });
  it('tells text from binary by content', () => {
    expect(looksLikeText(Buffer.from('héllo ☃'))).toBe(true);
    expect(looksLikeText(Buffer.from('héllo ☃').subarray(0, 9))).toBe(true); // a character cut at the end
    expect(looksLikeText(Buffer.from([0x68, 0x00, 0x69]))).toBe(false);
    // Not UTF-8 (0xC3 opens a two-byte character, 0x28 is no continuation): single-byte text, "Ã(".
    expect(looksLikeText(Buffer.from([0xc3, 0x28]))).toBe(true);
    expect(textOf(Buffer.from([0xc3, 0x28]))).toBe('Ã(');
  });
  it('calls UTF-16 with a byte order mark text and decodes it without the mark', () => {
    for (const be of [false, true]) {
      const bytes = utf16('UTF-16 ✓ text', be);
      expect(looksLikeText(bytes)).toBe(true);
      expect(textOf(bytes)).toBe('UTF-16 ✓ text');
    }
    expect(textOf(Buffer.from('\ufeffwith mark', 'utf8'))).toBe('with mark');
  });
  it('judges on the first SNIFF_BYTES only: what follows may not make a text file binary', () => {
    const bytes = Buffer.concat([Buffer.alloc(SNIFF_BYTES, 'a'), Buffer.from([0, 0xff])]);
    expect(looksLikeText(bytes)).toBe(true);
    // The first non-ASCII byte (0xFF) is no UTF-8: the file is single-byte, and ÿ.
    expect(textOf(bytes)).toBe('a'.repeat(SNIFF_BYTES) + '\0ÿ');
    expect(looksLikeText(Buffer.concat([Buffer.alloc(SNIFF_BYTES - 1, 'a'), Buffer.from([0])]))).toBe(false);
  });
});
