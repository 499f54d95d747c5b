import { describe, expect, it } from 'vitest';
import { DENIED_MESSAGE, dictationUnavailableReason, micErrorMessage, NO_DEVICE_MESSAGE } from './voice.js';

describe('micErrorMessage', () => {
  it('tells the user what to do for denied and missing microphones', () => {
    expect(micErrorMessage(new DOMException('Permission denied', 'NotAllowedError'))).toBe(
      'Microphone access was denied. Allow microphone access for Satchel in your browser or system settings, then try again.',
    );
    expect(micErrorMessage(new DOMException('x', 'NotAllowedError'))).toBe(DENIED_MESSAGE);
    expect(micErrorMessage(new DOMException('Requested device not found', 'NotFoundError'))).toBe(NO_DEVICE_MESSAGE);
    expect(micErrorMessage(new Error('boom'))).toBe('Could not start recording: boom');
  });
});

describe('dictationUnavailableReason', () => {
  it('offers dictation when the server can transcribe and the browser can record', () => {
    expect(dictationUnavailableReason({ available: true, provider: 'local' }, true)).toBeNull();
  });
  it('says why not, in words a person can act on', () => {
    expect(dictationUnavailableReason({ available: false, provider: 'local' }, true)).toMatch(/on-device speech is not installed for this machine/);
    expect(dictationUnavailableReason({ available: false, provider: 'none' }, true)).toMatch(/turned off or no provider is configured/);
    expect(dictationUnavailableReason({ available: false, provider: 'openai' }, true)).toMatch(/the openai speech provider is not set up/);
    expect(dictationUnavailableReason({ available: true, provider: 'local' }, false)).toMatch(/cannot record audio/);
    expect(dictationUnavailableReason(null, true)).toMatch(/did not say/);
  });
});
