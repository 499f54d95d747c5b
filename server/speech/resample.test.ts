import { describe, expect, it } from 'vitest';
import { resample } from './resample.js';

function tone(freq: number, rate: number, seconds: number, amplitude = 0.5): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * freq * i) / rate));
}

/** Amplitude of `freq` in `pcm` (single-bin DFT over the middle, away from the edges). */
function amplitudeAt(pcm: Float32Array, freq: number, rate: number): number {
  const from = Math.floor(pcm.length / 4);
  const to = Math.floor((3 * pcm.length) / 4);
  let re = 0;
  let im = 0;
  for (let i = from; i < to; i++) {
    re += (pcm[i] as number) * Math.cos((2 * Math.PI * freq * i) / rate);
    im += (pcm[i] as number) * Math.sin((2 * Math.PI * freq * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

describe('resample', () => {
  it('returns the input itself when the rates match', () => {
    const pcm = new Float32Array(10);
    expect(resample(pcm, 16000, 16000)).toBe(pcm);
  });

  it.each([44100, 48000, 22050, 8000])('keeps a 1 kHz tone at its level from %i Hz', (rate) => {
    const out = resample(tone(1000, rate, 1), rate, 16000);
    expect(out.length).toBe(16000);
    expect(amplitudeAt(out, 1000, 16000)).toBeGreaterThan(0.48);
    expect(amplitudeAt(out, 1000, 16000)).toBeLessThan(0.52);
  });

  it('removes content above the new Nyquist frequency instead of folding it into speech', () => {
    // 12 kHz at 48 kHz would alias to 4 kHz at 16 kHz without the low-pass.
    const out = resample(tone(12000, 48000, 1), 48000, 16000);
    expect(amplitudeAt(out, 4000, 16000)).toBeLessThan(0.005);
  });
});
