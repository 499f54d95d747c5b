// A spoken sentence as a WAV for Chromium's fake microphone, and word error rate for judging transcripts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const LEAD_SILENCE_S = 0.5;
export const TAIL_SILENCE_S = 1.0;

/** Synthesize `text` with espeak-ng (en-us), then pad silence so the first word isn't clipped. */
export function speechWav(text: string, out: string): void {
  const raw = `${out}.raw.wav`;
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text], { timeout: 30_000 });
  fs.writeFileSync(out, padWav(fs.readFileSync(raw), LEAD_SILENCE_S, TAIL_SILENCE_S));
  fs.rmSync(raw, { force: true });
}

/** Insert digital silence before and after the PCM data of a 16-bit WAV, rewriting the RIFF sizes. */
export function padWav(wav: Buffer, leadS: number, tailS: number): Buffer {
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let off = 12;
  let fmt: { channels: number; rate: number; bits: number } | null = null;
  while (off + 8 <= wav.length) {
    const id = wav.toString('ascii', off, off + 4);
    let size = wav.readUInt32LE(off + 4);
    if (id === 'fmt ') fmt = { channels: wav.readUInt16LE(off + 10), rate: wav.readUInt32LE(off + 12), bits: wav.readUInt16LE(off + 22) };
    if (id === 'data') {
      if (!fmt) throw new Error('WAV data before fmt');
      // espeak-ng writes 0x7fffffff-ish sizes when streaming: trust the file length instead.
      size = Math.min(size, wav.length - off - 8);
      const frame = fmt.channels * (fmt.bits / 8);
      const lead = Buffer.alloc(Math.round(leadS * fmt.rate) * frame);
      const tail = Buffer.alloc(Math.round(tailS * fmt.rate) * frame);
      const data = Buffer.concat([lead, wav.subarray(off + 8, off + 8 + size), tail]);
      const header = Buffer.from(wav.subarray(0, off + 8));
      header.writeUInt32LE(data.length, off + 4);
      header.writeUInt32LE(header.length - 8 + data.length, 4);
      return Buffer.concat([header, data]);
    }
    off += 8 + size + (size % 2);
  }
  throw new Error('WAV has no data chunk');
}

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Word error rate: word-level edit distance over the reference length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const r = words(reference);
  const h = words(hypothesis);
  if (r.length === 0) return h.length === 0 ? 0 : 1;
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) {
      const sub = (prev[j - 1] ?? 0) + (r[i - 1] === h[j - 1] ? 0 : 1);
      cur.push(Math.min(sub, (prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1));
    }
    prev = cur;
  }
  return (prev[h.length] ?? 0) / r.length;
}
