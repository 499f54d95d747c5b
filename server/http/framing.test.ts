import { describe, expect, it } from 'vitest';
import { analyzeFraming, parseRawHead } from './framing.js';

const cl = (...values: string[]) => values.flatMap((v) => ['Content-Length', v]);

describe('analyzeFraming', () => {
  it.each([
    [[], { contentLengthUnreadable: false, contentLength: undefined, bodyDeclared: false }],
    [cl('0'), { contentLengthUnreadable: false, contentLength: 0, bodyDeclared: false }],
    [cl('0, 0'), { contentLengthUnreadable: false, contentLength: 0, bodyDeclared: false }],
    [cl('12'), { contentLengthUnreadable: false, contentLength: 12, bodyDeclared: true }],
    [cl(' \t12\t '), { contentLengthUnreadable: false, contentLength: 12, bodyDeclared: true }],
    [cl('12', '12'), { contentLengthUnreadable: false, contentLength: 12, bodyDeclared: true }],
    [cl('012', '12'), { contentLengthUnreadable: false, contentLength: 12, bodyDeclared: true }],
    [cl('3, 4'), { contentLengthUnreadable: true, contentLength: undefined, bodyDeclared: true }],
    [cl('3', '4'), { contentLengthUnreadable: true, contentLength: undefined, bodyDeclared: true }],
    [cl('-1'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('+1'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('1_0'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('0x10'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('١٢'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl(''), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('1,'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('\u00a012'), { contentLengthUnreadable: true, bodyDeclared: true }],
    [cl('1\v'), { contentLengthUnreadable: true, bodyDeclared: true }],
  ])('%j', (raw, expected) => {
    expect(analyzeFraming(raw)).toMatchObject(expected);
  });

  it('names the first Transfer-Encoding value, blank included', () => {
    expect(analyzeFraming(['Transfer-Encoding', ' gzip, chunked']).transferEncoding).toBe('gzip');
    expect(analyzeFraming(['transfer-encoding', 'identity'])).toMatchObject({ transferEncoding: 'identity', bodyDeclared: true });
    expect(analyzeFraming(['Transfer-Encoding', ' \t']).transferEncoding).toBe('(blank)');
    expect(analyzeFraming(['Transfer-Encoding', 'chunked', 'Transfer-Encoding', 'gzip']).transferEncoding).toBe('chunked');
  });

  it('treats an absurdly long length as larger than any cap', () => {
    expect(analyzeFraming(cl('99999999999999999999')).contentLength).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('parseRawHead', () => {
  it('finds the request line and headers of refused bytes', () => {
    const head = parseRawHead(Buffer.from('POST /api/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\nbody'));
    expect(head).toEqual({ method: 'POST', target: '/api/upload', rawHeaders: ['Host', ' x', 'Content-Length', ' 1, 2'] });
  });
  it('returns undefined for nothing useful', () => {
    expect(parseRawHead(undefined)).toBeUndefined();
    expect(parseRawHead(Buffer.from('garbage'))).toBeUndefined();
  });
});
