// Band-limited resampling (windowed sinc). Plain linear interpolation would fold everything above 8 kHz of a
// 44.1/48 kHz recording back into the speech band, which costs recognition accuracy.

/** Zero crossings of the sinc on each side: 16 keeps the passband flat to ~90 % of Nyquist. */
const HALF_TAPS = 16;
/** Cut off a little below the target's Nyquist frequency so the transition band does not alias. */
const CUTOFF = 0.92;
/** Precomputed kernel resolution (points per zero crossing); linear interpolation in between. */
const TABLE_RESOLUTION = 512;

let kernelTable: Float32Array | undefined;

// Kaiser-windowed sinc over [0, HALF_TAPS] in zero-crossing units, sampled finely once.
function kernel(): Float32Array {
  if (kernelTable) return kernelTable;
  const beta = 8.6;
  const bessel0 = (x: number): number => {
    let sum = 1;
    let term = 1;
    for (let k = 1; k < 30; k++) {
      term *= (x / (2 * k)) ** 2;
      sum += term;
    }
    return sum;
  };
  const size = HALF_TAPS * TABLE_RESOLUTION + 2;
  const table = new Float32Array(size);
  const norm = bessel0(beta);
  for (let i = 0; i < size; i++) {
    const x = i / TABLE_RESOLUTION;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const r = Math.min(1, x / HALF_TAPS);
    table[i] = (sinc * bessel0(beta * Math.sqrt(1 - r * r))) / norm;
  }
  kernelTable = table;
  return table;
}

/** Resample mono PCM from `fromRate` to `toRate`. Returns the input itself when the rates match. */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return input;
  const table = kernel();
  const ratio = toRate / fromRate;
  // When downsampling, stretch the kernel so it low-passes at the target's Nyquist frequency.
  const scale = Math.min(1, ratio) * CUTOFF;
  const reach = HALF_TAPS / scale; // input samples on each side
  const outLength = Math.floor((input.length * toRate) / fromRate);
  const out = new Float32Array(outLength);
  for (let i = 0; i < outLength; i++) {
    const center = i / ratio;
    const first = Math.max(0, Math.ceil(center - reach));
    const last = Math.min(input.length - 1, Math.floor(center + reach));
    let sum = 0;
    let weights = 0;
    for (let j = first; j <= last; j++) {
      const pos = Math.abs(j - center) * scale * TABLE_RESOLUTION;
      const k = Math.floor(pos);
      const frac = pos - k;
      const w = (table[k] ?? 0) * (1 - frac) + (table[k + 1] ?? 0) * frac;
      sum += (input[j] ?? 0) * w;
      weights += w;
    }
    // Normalizing by the summed weights keeps unity gain at DC, including at the edges.
    out[i] = weights > 0 ? sum / weights : 0;
  }
  return out;
}
