import { describe, expect, it } from 'vitest';
import { buildMultipart, fileBytesSent, MULTIPART_OVERHEAD_BYTES, sizeCheck } from './upload.js';
import { formatBytes } from './format.js';

describe('buildMultipart', () => {
  it('puts fields before files and records exact file ranges', async () => {
    const file = new Blob(['hello world'], { type: 'text/plain' });
    const { body, contentType, fileRanges } = buildMultipart({ session_id: 'abc123' }, [{ field: 'file', filename: 'a "b".txt', blob: file }], 'BOUND');
    expect(contentType).toBe('multipart/form-data; boundary=BOUND');
    const text = await body.text();
    expect(text).toBe(
      '--BOUND\r\nContent-Disposition: form-data; name="session_id"\r\n\r\nabc123\r\n' +
        '--BOUND\r\nContent-Disposition: form-data; name="file"; filename="a %22b%22.txt"\r\nContent-Type: text/plain\r\n\r\n' +
        'hello world\r\n--BOUND--\r\n',
    );
    const [range] = fileRanges;
    expect(range).toBeDefined();
    const [start, end] = range as [number, number];
    expect(text.slice(start, end)).toBe('hello world');
  });

  it('counts UTF-8 bytes, not characters, for offsets', async () => {
    const file = new Blob([new Uint8Array([1, 2, 3])]);
    const { body, fileRanges } = buildMultipart({ note: 'héllo wörld' }, [{ field: 'file', filename: 'ß.bin', blob: file }], 'B');
    const bytes = new Uint8Array(await body.arrayBuffer());
    const [start, end] = fileRanges[0] as [number, number];
    expect(Array.from(bytes.slice(start, end))).toEqual([1, 2, 3]);
    expect(bytes.byteLength).toBe(body.size);
  });
});

describe('fileBytesSent', () => {
  it('maps request bytes to file bytes', () => {
    const ranges: Array<[number, number]> = [[100, 1100]];
    expect(fileBytesSent(ranges, 0)).toBe(0);
    expect(fileBytesSent(ranges, 100)).toBe(0);
    expect(fileBytesSent(ranges, 600)).toBe(500);
    expect(fileBytesSent(ranges, 1100)).toBe(1000);
    expect(fileBytesSent(ranges, 1130)).toBe(1000);
  });
});

describe('sizeCheck', () => {
  const cap = 100 * 1024 * 1024;
  it('passes files that fit with their framing', () => {
    expect(sizeCheck('a.bin', cap - MULTIPART_OVERHEAD_BYTES, cap, formatBytes)).toBeNull();
    expect(sizeCheck('a.bin', 10, undefined, formatBytes)).toBeNull();
  });
  it('explains a file over the cap', () => {
    expect(sizeCheck('big.iso', 150 * 1024 * 1024, cap, formatBytes)).toBe(
      'big.iso is 150.0 MB, larger than this server’s upload limit of 100.0 MB. Split or compress it, or raise SATCHEL_WEBUI_MAX_UPLOAD_MB.',
    );
  });
});
