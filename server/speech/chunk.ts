// Cutting long audio at silences. Moonshine skips and repeats words on inputs much longer than 30 s, so long
// recordings are cut into pieces of at most MAX_CHUNK_SECONDS, each cut at the quietest moment of a window,
// which in speech is a pause between words or sentences.

/** Longest piece handed to the model; the model adds 0.75 s of padding, staying under 30 s. */
export const MAX_CHUNK_SECONDS = 28;
/** Shortest piece a cut may leave before it, so one pause does not produce a splinter. */
export const MIN_CHUNK_SECONDS = 10;
/** Energy is measured over frames of this length. */
const FRAME_SECONDS = 0.02;
/** A cut point is judged by the energy around it over this span, so a stop consonant is not a "pause". */
const QUIET_SPAN_SECONDS = 0.3;
/** Below this RMS (about -54 dBFS) everywhere, audio holds no speech and is not transcribed at all. */
export const SILENCE_RMS = 0.002;

/** RMS energy per frame. */
function frameEnergies(pcm: Float32Array, frameSize: number): Float32Array {
  const count = Math.ceil(pcm.length / frameSize);
  const energies = new Float32Array(count);
  for (let f = 0; f < count; f++) {
    const start = f * frameSize;
    const end = Math.min(pcm.length, start + frameSize);
    let sum = 0;
    for (let i = start; i < end; i++) sum += (pcm[i] as number) ** 2;
    energies[f] = Math.sqrt(sum / (end - start));
  }
  return energies;
}

/** Moving average over `span` frames, centred. */
function smooth(values: Float32Array, span: number): Float32Array {
  const half = Math.floor(span / 2);
  const prefix = new Float64Array(values.length + 1);
  for (let i = 0; i < values.length; i++) prefix[i + 1] = (prefix[i] as number) + (values[i] as number);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const lo = Math.max(0, i - half);
    const hi = Math.min(values.length, i + half + 1);
    out[i] = ((prefix[hi] as number) - (prefix[lo] as number)) / (hi - lo);
  }
  return out;
}

/**
 * Split mono PCM into consecutive pieces of at most `maxSeconds`, each cut at the quietest point between
 * `minSeconds` and `maxSeconds` after the previous cut. The pieces are views (subarrays) and cover the input.
 */
export function splitAtSilences(
  pcm: Float32Array,
  sampleRate: number,
  opts: { maxSeconds?: number; minSeconds?: number } = {},
): Float32Array[] {
  const maxSamples = Math.floor((opts.maxSeconds ?? MAX_CHUNK_SECONDS) * sampleRate);
  const minSamples = Math.min(maxSamples, Math.floor((opts.minSeconds ?? MIN_CHUNK_SECONDS) * sampleRate));
  if (pcm.length <= maxSamples) return [pcm];
  const frameSize = Math.max(1, Math.round(FRAME_SECONDS * sampleRate));
  const quiet = smooth(frameEnergies(pcm, frameSize), Math.max(1, Math.round(QUIET_SPAN_SECONDS / FRAME_SECONDS)));

  const chunks: Float32Array[] = [];
  let start = 0;
  while (pcm.length - start > maxSamples) {
    // Whole frames only, so that the cut (a frame's centre) never lands past start + maxSamples.
    const firstFrame = Math.ceil((start + minSamples) / frameSize);
    const lastFrame = Math.floor((start + maxSamples) / frameSize) - 1;
    let best = lastFrame;
    for (let f = lastFrame; f >= firstFrame; f--) {
      if ((quiet[f] as number) < (quiet[best] as number)) best = f;
    }
    const cut = Math.min(start + maxSamples, Math.max(start + 1, best * frameSize + Math.floor(frameSize / 2)));
    chunks.push(pcm.subarray(start, cut));
    start = cut;
  }
  chunks.push(pcm.subarray(start));
  return chunks;
}

/** True when no 20 ms frame of the audio rises above SILENCE_RMS. */
export function isSilence(pcm: Float32Array, sampleRate: number): boolean {
  const energies = frameEnergies(pcm, Math.max(1, Math.round(FRAME_SECONDS * sampleRate)));
  return energies.every((e) => e < SILENCE_RMS);
}
