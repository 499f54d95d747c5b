import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeZipName } from './zip-names.js';

const unicodePath = (headerName: Buffer, utf8: string, crc = crc32(headerName)) => {
  const name = Buffer.from(utf8);
  const data = Buffer.alloc(5 + name.length);
  data[0] = 1;
  data.writeUInt32LE(crc >>> 0, 1);
  name.copy(data, 5);
  return { id: 0x7075, data };
};

describe('zip member names', () => {
  it('valid UTF-8 without the flag is UTF-8 (Info-ZIP on Linux), anything else CP437', () => {
    expect(decodeZipName(0, Buffer.from('café/中文文件.md'), [])).toBe('café/中文文件.md');
    // 0x82 alone is not UTF-8: CP437 é, as a DOS-era archiver meant it.
    expect(decodeZipName(0, Buffer.from([0x63, 0x61, 0x66, 0x82]), [])).toBe('café');
  });

  it('the Unicode Path extra field wins when its CRC matches the header name, and is ignored when not', () => {
    const header = Buffer.from([0x63, 0x61, 0x66, 0x82]);
    expect(decodeZipName(0, header, [unicodePath(header, 'café-unicode')])).toBe('café-unicode');
    expect(decodeZipName(0, header, [unicodePath(header, 'café-unicode', 12345)])).toBe('café');
  });
});
