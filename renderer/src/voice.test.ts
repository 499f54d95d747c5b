import { describe, expect, it } from 'vitest';
import { DENIED_MESSAGE, micErrorMessage, NO_DEVICE_MESSAGE } from './voice.js';

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
