import { describe, expect, it } from 'vitest';
import { backoffDelay, RECONNECT_MAX_MS, RECONNECT_MIN_MS } from './events.js';

describe('backoffDelay', () => {
  it('doubles from the minimum and caps, within the jitter band', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(RECONNECT_MIN_MS);
    expect(backoffDelay(3, () => 0.5)).toBe(8 * RECONNECT_MIN_MS);
    expect(backoffDelay(50, () => 0.5)).toBe(RECONNECT_MAX_MS);
    expect(backoffDelay(0, () => 0)).toBe(RECONNECT_MIN_MS * 0.8);
    expect(backoffDelay(0, () => 1)).toBe(RECONNECT_MIN_MS * 1.2);
  });
});
