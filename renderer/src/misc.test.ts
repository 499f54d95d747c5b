import { describe, expect, it } from 'vitest';
import { backoffDelay, RECONNECT_MAX_MS, RECONNECT_MIN_MS } from './events.js';
import { DENIED_MESSAGE, micErrorMessage, NO_DEVICE_MESSAGE } from './voice.js';
import { sidecarPath } from './workspace.js';
import { errorText } from './api.js';

describe('backoffDelay', () => {
  it('doubles from the minimum and caps, within the jitter band', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(RECONNECT_MIN_MS);
    expect(backoffDelay(3, () => 0.5)).toBe(8 * RECONNECT_MIN_MS);
    expect(backoffDelay(50, () => 0.5)).toBe(RECONNECT_MAX_MS);
    expect(backoffDelay(0, () => 0)).toBe(RECONNECT_MIN_MS * 0.8);
    expect(backoffDelay(0, () => 1)).toBe(RECONNECT_MIN_MS * 1.2);
  });
});

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

describe('sidecarPath', () => {
  it('places the server’s sidecar beside the upload, relative to the workspace', () => {
    expect(sidecarPath({ filename: 'r.docx', sidecar: { filename: 'r.docx.md', path: '/ws/docs/r.docx.md', preview_kind: 'office' } }, 'docs')).toBe('docs/r.docx.md');
    expect(sidecarPath({ filename: 'r.docx', preview_kind: 'office' }, '')).toBe('r.docx.md');
    expect(sidecarPath({ filename: 'r.docx', sidecar_error: 'Office sidecar extraction failed' }, '')).toBeNull();
    expect(sidecarPath({ filename: 'a.txt' }, '')).toBeNull();
  });
});

describe('errorText', () => {
  it('shows the server’s error text, or a generic one', () => {
    expect(errorText(413, '{"error":"File too large (max 100MB)"}')).toBe('File too large (max 100MB)');
    expect(errorText(502, '<html>')).toBe('Request failed (HTTP 502)');
    expect(errorText(0, '')).toMatch(/not reachable/);
  });
});
