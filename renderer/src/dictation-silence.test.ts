import { describe, expect, it } from 'vitest';
import { DEFAULT_SILENCE_STOP_SECONDS, parseSilenceSeconds, SILENCE_STORAGE_KEY, silenceEnds, silenceStopSeconds } from './dictation-silence.js';

describe('dictation stops on silence', () => {
  it('stops after the chosen seconds without sound, never while held, never when turned off', () => {
    expect(silenceEnds(10_000, 7_000, 3, false)).toBe(true);
    expect(silenceEnds(9_999, 7_000, 3, false)).toBe(false);
    expect(silenceEnds(60_000, 0, 3, true)).toBe(false);
    expect(silenceEnds(60_000, 0, 0, false)).toBe(false);
  });
  it('reads the choice kept in the browser, the default when none or a bad one is kept', () => {
    const store = (v: string | null) => ({ getItem: (k: string) => (k === SILENCE_STORAGE_KEY ? v : null) });
    expect(silenceStopSeconds(store(null))).toBe(DEFAULT_SILENCE_STOP_SECONDS);
    expect(DEFAULT_SILENCE_STOP_SECONDS).toBe(3);
    expect(silenceStopSeconds(store('5'))).toBe(5);
    expect(silenceStopSeconds(store('0'))).toBe(0);
    expect(silenceStopSeconds(store('-1'))).toBe(DEFAULT_SILENCE_STOP_SECONDS);
    expect(silenceStopSeconds(store('lots'))).toBe(DEFAULT_SILENCE_STOP_SECONDS);
    expect(parseSilenceSeconds('61')).toBeNull();
    expect(parseSilenceSeconds('2.5')).toBe(2.5);
    expect(parseSilenceSeconds(' ')).toBeNull();
  });
});
