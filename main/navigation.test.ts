import { describe, expect, it } from 'vitest';
import { decideNavigation, externalUrl, isAppUrl, MAX_EXTERNAL_URL_LENGTH } from './navigation.js';

const APP = 'http://127.0.0.1:41234';

describe('isAppUrl', () => {
  it('accepts exactly the app origin, any path', () => {
    expect(isAppUrl('http://127.0.0.1:41234/', APP)).toBe(true);
    expect(isAppUrl('http://127.0.0.1:41234/session?x=1#y', APP)).toBe(true);
    expect(isAppUrl('http://127.0.0.1:41234', APP)).toBe(true);
  });
  it('rejects other ports, hosts, schemes, opaque and malformed URLs', () => {
    for (const url of [
      'http://127.0.0.1:41235/',
      'http://localhost:41234/',
      'https://127.0.0.1:41234/',
      'http://127.0.0.1.evil.test:41234/',
      'http://evil.test/?http://127.0.0.1:41234/',
      'data:text/html,hi',
      'about:blank',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'not a url',
      '',
    ]) {
      expect(isAppUrl(url, APP), url).toBe(false);
    }
    expect(isAppUrl(null, APP)).toBe(false);
    expect(isAppUrl(undefined, APP)).toBe(false);
  });
});

describe('externalUrl', () => {
  it('passes http and https links, normalized', () => {
    expect(externalUrl('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(externalUrl('http://example.com')).toBe('http://example.com/');
  });
  it('refuses every other scheme', () => {
    for (const url of [
      'file:///C:/Windows/system32/calc.exe',
      'javascript:alert(1)',
      'mailto:a@b.c',
      'smb://host/share',
      'ms-settings:privacy',
      'vscode://file/etc/passwd',
      'data:text/html,x',
      'ftp://example.com/',
    ]) {
      expect(externalUrl(url), url).toBeUndefined();
    }
  });
  it('refuses embedded credentials, missing hosts and oversized URLs', () => {
    expect(externalUrl('https://user:pw@example.com/')).toBeUndefined();
    expect(externalUrl('https://bank.test@evil.test/')).toBeUndefined();
    expect(externalUrl('https://example.com/' + 'a'.repeat(MAX_EXTERNAL_URL_LENGTH))).toBeUndefined();
    expect(externalUrl('garbage')).toBeUndefined();
  });
});

describe('decideNavigation', () => {
  it('allows the app origin, sends http(s) outside, denies the rest', () => {
    expect(decideNavigation(`${APP}/other`, APP)).toEqual({ action: 'allow' });
    expect(decideNavigation('https://docs.example.com/x', APP)).toEqual({
      action: 'external',
      url: 'https://docs.example.com/x',
    });
    expect(decideNavigation('http://127.0.0.1:9/', APP)).toEqual({ action: 'external', url: 'http://127.0.0.1:9/' });
    expect(decideNavigation('file:///etc/passwd', APP)).toEqual({ action: 'deny' });
    expect(decideNavigation('about:blank', APP)).toEqual({ action: 'deny' });
  });
});
