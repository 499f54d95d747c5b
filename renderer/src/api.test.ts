import { describe, expect, it } from 'vitest';
import { errorText } from './api.js';

describe('errorText', () => {
  it('shows the server’s error text, or a generic one', () => {
    expect(errorText(413, '{"error":"File too large (max 100MB)"}')).toBe('File too large (max 100MB)');
    expect(errorText(502, '<html>')).toBe('Request failed (HTTP 502)');
    expect(errorText(0, '')).toMatch(/not reachable/);
  });
});
