// Credential redaction (spec-notes 4.0, "Redaction"; the complete rule set is ../shared/spec/redaction.md).
// Module map: chars.ts (character classes, boundaries), mask.ts (the masking rule), vendors.ts / tokens.ts
// (token shapes), assignments.ts / names.ts / values.ts (NAME=value, config lines, JSON / Python / YAML fields),
// headers.ts (Authorization, API-key headers), urls.ts (URLs, form bodies), pem.ts (private-key blocks),
// invisible.ts (tokens split by invisible characters), finding.ts (one mask per span), engine.ts (runs them all).
import { deepMap } from './deep.js';
import { applyRules, findAll } from './engine.js';
import { applyRulesScreened, untouchedByRules } from './screen.js';
import { knownSecretsGeneration, maskKnown } from './known.js';

export { maskToken, MASK_ELLIPSIS, MASK_HEAD, MASK_MIN_LENGTH, MASK_TAIL, REDACTED_PRIVATE_KEY, SHORT_MASK } from './mask.js';
export { findPrivateKeyBegin, findPrivateKeyEnd, type Span } from './pem.js';
export { GOOGLE_MIN_TAIL, VENDOR_MIN_TAIL, VENDOR_SHAPES, type VendorShape } from './vendors.js';
export { AWS_KEY_TAIL } from './tokens.js';
export { PRIVATE_KEY_RULE } from './engine.js';
export { KNOWN_SECRET_MASK, knownSecrets, knownSecretsGeneration, maskKnown, rememberAgentKey, rememberOwnSecret, rememberSecret, SecretMatcher } from './known.js';
export { maskGluedKeys } from './glued.js';
export { PHONE_MASK } from './mask.js';
// Live reply text, redacted as it streams (every prefix sent is a prefix of redact(whole)).
export { StreamRedactor } from './stream-redact.js';
export { untouchedByRules } from './screen.js';
// A long text (an attachment's, for the search index) redacted in slices, the event loop free between them.
export { redactYielding, REDACT_SLICE_CHARS } from './yielding.js';
// Where redact() put its masks and what each hides: only for "Show" on a masked value (handlers/reveal.ts).
export { maskedSpans, type MaskedText, type MaskSpan } from './spans.js';

/** Memoization applies to strings up to this many UTF-16 units; longer ones are always re-redacted. */
export const MEMO_MAX_CHARS = 16384;
/** Memo entries kept; the least recently used is evicted first. */
export const MEMO_MAX_ENTRIES = 4096;

// Pure memoization: a Map keeps insertion order, so re-inserting on a hit makes the first key the least recent.
const memo = new Map<string, string>();
/** The known secrets the memo was filled under: when they change, what it holds may no longer be masked enough. */
let memoGeneration = knownSecretsGeneration();

/**
 * Mask every credential in `text`: the known secrets' values first (known.ts), then every rule on what is left.
 * Never throws; a non-string is returned unchanged.
 */
export function redact(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  if (text.length > MEMO_MAX_CHARS) return applyRulesScreened(maskKnown(text));
  if (memoGeneration !== knownSecretsGeneration()) {
    memo.clear();
    memoGeneration = knownSecretsGeneration();
  }
  const cached = memo.get(text);
  if (cached !== undefined) {
    memo.delete(text);
    memo.set(text, cached);
    return cached;
  }
  const known = maskKnown(text);
  // A text the screen passes costs one pass: not memoized, so the memo keeps the texts the rules had to read.
  if (untouchedByRules(known)) return known;
  const result = applyRules(known);
  memo.set(text, result);
  if (memo.size > MEMO_MAX_ENTRIES) memo.delete(memo.keys().next().value as string);
  return result;
}

/** Number of memoized strings (for tests and diagnostics). */
export function redactCacheSize(): number {
  return memo.size;
}

/** True when `text` is memoized (does not refresh its recency). */
export function isRedactCached(text: string): boolean {
  return memo.has(text);
}

export function clearRedactCache(): void {
  memo.clear();
}

/** A deep copy of `value` with every string VALUE redacted (keys kept; see deep.ts). */
export function redactDeep<T>(value: T): T {
  return deepMap(value, redact);
}

export interface RedactionFinding {
  /** The rule's name (`vendor key ghp_`, `assignment`, `private key`, …); never the secret. */
  rule: string;
  /** UTF-16 offset in `text` where the masked span starts. */
  index: number;
  /** UTF-16 offset where it ends (exclusive). */
  end: number;
}

/** What redact(text) would mask, in text order, without the secrets (for `npm run redact -- --check`). */
export function redactionFindings(text: string): RedactionFinding[] {
  if (typeof text !== 'string' || text.length === 0) return [];
  return findAll(text).map((f) => ({ rule: f.rule, index: f.start, end: f.end }));
}
