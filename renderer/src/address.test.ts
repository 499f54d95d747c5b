import { describe, expect, it } from 'vitest';
import { sessionHash, sessionInAddress, SETTINGS_HASH } from './address.js';

describe('sessionInAddress', () => {
  it('reads the conversation and the message a link names', () => {
    expect(sessionInAddress('#s=2b1f-aa_9')).toEqual({ id: '2b1f-aa_9' });
    expect(sessionInAddress('#s=abc&m=12')).toEqual({ id: 'abc', message: 12 });
    expect(sessionInAddress(sessionHash('abc'))).toEqual({ id: 'abc' });
  });

  it('names nothing for any other address', () => {
    for (const hash of ['', '#', SETTINGS_HASH, '#s=', '#s=a b', '#s=abc&m=', '#s=abc&m=1234567', '#s=abc&m=-1', '#x=abc', '#s=abc&m=1&z=2']) {
      expect(sessionInAddress(hash), hash).toBeNull();
    }
  });
});
