import { describe, expect, it } from 'vitest';
import { hostName, isAllowedHost, parseCookies, tokensEqual } from './access.js';

describe('Host check', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.1:8080', true],
    ['localhost:1', true],
    ['LOCALHOST', true],
    ['[::1]:443', true],
    ['evil.example.com', false],
    ['127.0.0.1.nip.io', false],
    ['localhost.evil.com:80', false],
    ['', false],
    [undefined, false],
    ['127.0.0.1:80:80', false],
  ])('%s → %s', (host, ok) => {
    expect(isAllowedHost(host, '127.0.0.1')).toBe(ok);
  });

  it('accepts a deliberately bound host name, never a wildcard bind', () => {
    expect(isAllowedHost('192.168.1.5:9000', '192.168.1.5')).toBe(true);
    expect(isAllowedHost('0.0.0.0:9000', '0.0.0.0')).toBe(false);
    expect(hostName('[::1]:80')).toBe('[::1]');
  });
});

describe('cookies and tokens', () => {
  it('parses cookies, first wins', () => {
    const c = parseCookies('a=1; satchel_access=tok; a=2; junk');
    expect(c.get('a')).toBe('1');
    expect(c.get('satchel_access')).toBe('tok');
  });
  it('compares tokens of any length', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual('', 'abc')).toBe(false);
    // The token's bytes are compared, not its characters: as many characters, more bytes.
    expect(tokensEqual('ab\u00e9', 'abc')).toBe(false);
    expect(tokensEqual('abcd', 'abc')).toBe(false);
    expect(tokensEqual('\u00e9', '\u00e9')).toBe(true);
    // A guess compared before does not change the next answer (the comparison's buffer is reused).
    expect(tokensEqual('abc', 'abc')).toBe(true);
  });
});
