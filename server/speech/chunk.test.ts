import { describe, expect, it } from 'vitest';
import { isSilence, MAX_CHUNK_SECONDS, splitAtSilences } from './chunk.js';

const RATE = 16000;

/** Noise bursts ("speech") separated by near-silent gaps at known places. */
function speechWithGaps(segments: { speech: number; gap: number }[]): { pcm: Float32Array; gaps: [number, number][] } {
  const total = segments.reduce((n, s) => n + s.speech + s.gap, 0);
  const pcm = new Float32Array(Math.round(total * RATE));
  const gaps: [number, number][] = [];
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  let t = 0;
  for (const { speech, gap } of segments) {
    const start = Math.round(t * RATE);
    const end = Math.round((t + speech) * RATE);
    for (let i = start; i < end; i++) pcm[i] = 0.3 * random();
    for (let i = end; i < Math.round((t + speech + gap) * RATE); i++) pcm[i] = 0.0005 * random();
    t += speech + gap;
    gaps.push([end, Math.round(t * RATE)]);
  }
  return { pcm, gaps };
}

describe('splitAtSilences', () => {
  it('leaves audio up to the limit in one piece', () => {
    const pcm = new Float32Array(MAX_CHUNK_SECONDS * RATE);
    const pieces = splitAtSilences(pcm, RATE);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]).toBe(pcm);
  });

  it('cuts 70 s of speech inside pauses, every piece within the limit, covering the input exactly', () => {
    const { pcm, gaps } = speechWithGaps([
      { speech: 9, gap: 0.6 },
      { speech: 8, gap: 0.8 },
      { speech: 9, gap: 0.7 },
      { speech: 11, gap: 0.6 },
      { speech: 8, gap: 0.9 },
      { speech: 10, gap: 0.5 },
      { speech: 11, gap: 0.5 },
    ]);
    const pieces = splitAtSilences(pcm, RATE);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    let offset = 0;
    for (const [i, piece] of pieces.entries()) {
      expect(piece.length).toBeLessThanOrEqual(MAX_CHUNK_SECONDS * RATE);
      expect(piece.byteOffset / 4).toBe(offset); // contiguous views, in order
      offset += piece.length;
      if (i < pieces.length - 1) {
        const inGap = gaps.some(([start, end]) => offset > start && offset < end);
        expect(inGap, `cut at ${offset / RATE}s is not in a pause`).toBe(true);
      }
    }
    expect(offset).toBe(pcm.length);
  });

  it('still cuts within the limit when there is no pause at all', () => {
    const pcm = new Float32Array(65 * RATE).fill(0.2);
    const pieces = splitAtSilences(pcm, RATE, { maxSeconds: 20, minSeconds: 5 });
    expect(pieces.map((p) => p.length).reduce((a, b) => a + b)).toBe(pcm.length);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(20 * RATE);
    expect(pieces.length).toBe(4);
  });

  it('prefers the quietest of several pauses in the window', () => {
    const { pcm, gaps } = speechWithGaps([
      { speech: 12, gap: 0.5 },
      { speech: 6, gap: 0.5 },
      { speech: 20, gap: 0 },
    ]);
    // Make the second pause truly silent: it must win over the first (noisier) one.
    const second = gaps[1] as [number, number];
    pcm.fill(0, second[0], second[1]);
    const [first] = splitAtSilences(pcm, RATE);
    expect(first!.length).toBeGreaterThan(second[0]);
    expect(first!.length).toBeLessThan(second[1]);
  });
});

describe('isSilence', () => {
  it('is true for digital silence and faint noise, false once any frame carries sound', () => {
    expect(isSilence(new Float32Array(RATE), RATE)).toBe(true);
    const faint = new Float32Array(RATE).map((_, i) => (i % 2 ? 0.001 : -0.001));
    expect(isSilence(faint, RATE)).toBe(true);
    const blip = new Float32Array(RATE);
    blip.fill(0.05, 8000, 8320); // one 20 ms frame
    expect(isSilence(blip, RATE)).toBe(false);
  });
});
