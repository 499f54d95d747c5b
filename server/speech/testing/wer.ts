// Word error rate for speech tests and the benchmark: word-level edit distance over the reference length,
// after the normalization every ASR comparison needs (case, punctuation, hyphens, whitespace).

/** Lower-case words, punctuation dropped (apostrophes inside words kept: "don't"), hyphens split words. */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[-‐–—/]/g, ' ')
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 0);
}

/** Minimum substitutions + insertions + deletions turning `ref` into `hyp`. */
export function editDistance(ref: readonly string[], hyp: readonly string[]): number {
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = (previous[j - 1] as number) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1);
    }
    previous = current;
  }
  return previous[hyp.length] as number;
}

/** Word error rate of `hypothesis` against `reference`; an empty reference scores 0 only for an empty hypothesis. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return editDistance(ref, hyp) / ref.length;
}
