// Vendor key shapes (redaction.md A1, B1, and the extras Satchel adds): a literal prefix + a tail from the
// vendor's alphabet, bounded on both sides (see chars.ts boundedLeft/boundedRight). The whole token, prefix
// included, is masked.
import {
  ALNUM,
  ALNUM_DASH,
  asciiTable,
  ALNUM_UNDERSCORE,
  BASE64URL,
  BASE64URL_DOT,
  BASE64URL_EQUALS,
  boundedLeft,
  boundedRight,
  DIGIT,
  inTable,
  runEnd,
  RunCache,
  runStart,
} from './chars.js';
import type { Finding } from './finding.js';
import { maskToken } from './mask.js';
import { discordAt, zhipuAt } from './tokens.js';

/** The specification's minimum tail after a vendor prefix. */
export const VENDOR_MIN_TAIL = 10;
/** Google API keys: `AIza` + at least 30 (real keys have 35). */
export const GOOGLE_MIN_TAIL = 30;
/** Fernet tokens (`gAAAA…`). */
export const FERNET_MIN_TAIL = 20;
/** xAI and Fireworks keys are long; a short tail after these common words is not one. */
export const LONG_MIN_TAIL = 30;
/** Langfuse public keys. */
export const LANGFUSE_MIN_TAIL = 8;

export interface VendorShape {
  prefix: string;
  /** Tail alphabet (ASCII). */
  tail: Uint8Array;
  minTail: number;
  /** `sk-`: the tail continues through single dots between tail characters (`..` ends it). */
  dotted?: boolean;
  /** `xapp-`: digits and a `-` come between the prefix and the tail. */
  digitsDash?: boolean;
}

/** Rank of a bare vendor token: structural rules (assignments, headers, URLs) covering the same span win. */
export const VENDOR_RANK = 50;

function shapes(prefixes: string[], tail: Uint8Array, minTail = VENDOR_MIN_TAIL, extra: Partial<VendorShape> = {}): VendorShape[] {
  return prefixes.map((prefix) => ({ prefix, tail, minTail, ...extra }));
}

export const VENDOR_SHAPES: readonly VendorShape[] = [
  // A1, the specification's table (AKIA is the AWS rule in tokens.ts: it needs no boundary).
  ...shapes(['sk-'], BASE64URL, VENDOR_MIN_TAIL, { dotted: true }),
  ...shapes(['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], ALNUM),
  ...shapes(['github_pat_'], ALNUM_UNDERSCORE),
  ...shapes(['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-'], ALNUM_DASH),
  ...shapes(['AIza'], BASE64URL, GOOGLE_MIN_TAIL),
  ...shapes(['pplx-', 'fc-'], ALNUM),
  ...shapes(['fal_', 'bb_live_', 'pypi-', 'am_'], BASE64URL),
  // SendGrid keys are `SG.<id>.<secret>`: the tail continues through single dots (Satchel masks more than the
  // table, which would leave the secret half after the dot visible).
  ...shapes(['SG.'], BASE64URL, VENDOR_MIN_TAIL, { dotted: true }),
  ...shapes(['gAAAA'], BASE64URL_EQUALS, FERNET_MIN_TAIL),
  ...shapes(['sk_live_', 'sk_test_', 'rk_live_', 'hf_', 'r8_', 'npm_', 'dop_v1_', 'doo_v1_'], ALNUM),
  ...shapes(['sk_'], ALNUM_UNDERSCORE), // generic; also catches `sk_live_` + 9
  ...shapes(['tvly-', 'exa_', 'gsk_', 'syt_', 'retaindb_', 'hsk-', 'mem0_', 'brv_'], ALNUM),
  // B1.
  ...shapes(['xapp-'], ALNUM_DASH, VENDOR_MIN_TAIL, { digitsDash: true }),
  ...shapes(['xai-', 'fw-', 'fw_', 'fpk_'], ALNUM, LONG_MIN_TAIL),
  ...shapes(['ntn_'], ALNUM),
  ...shapes(
    ['glpat-', 'gloas-', 'gldt-', 'glcbt-', 'glptt-', 'glft-', 'glimt-', 'glagent-', 'glsoat-', 'glffct-', 'glwt-', 'GR1348941'],
    BASE64URL,
  ),
  ...shapes(['glrt-', 'glrtr-'], BASE64URL_DOT),
  ...shapes(['pk-lf-'], ALNUM_DASH, LANGFUSE_MIN_TAIL),
  // Satchel's own agent keys (issue 39, mcp/keys.ts AGENT_TOKEN_PREFIX): masked by shape too, so one pasted after a
  // restart, before its first use made it a known secret again, is never served.
  ...shapes(['satchel_ak_'], BASE64URL, LONG_MIN_TAIL),
  // Satchel's own additions (masked before this page existed; each is a real credential format).
  ...shapes(['rk_test_', 'whsec_', 'lin_api_', 'dor_v1_', 'shpat_', 'shpss_', 'shpca_', 'shppa_', 'AGE-SECRET-KEY-1'], ALNUM),
  ...shapes(['ya29.', 'dckr_pat_', 'hvs.', 'hvb.'], BASE64URL),
  ...shapes(['PMAK-'], ALNUM_DASH),
];

export function vendorRule(shape: VendorShape): string {
  return `vendor key ${shape.prefix}`;
}

/** End of the token of `shape` starting at `at`, or -1 (the left boundary is the caller's). */
export function vendorEnd(text: string, at: number, shape: VendorShape): number {
  if (!text.startsWith(shape.prefix, at)) return -1;
  let i = at + shape.prefix.length;
  if (shape.digitsDash) {
    const digits = runEnd(text, i, DIGIT);
    if (digits === i || text.charCodeAt(digits) !== 0x2d) return -1;
    i = digits + 1;
  }
  const tailStart = i;
  i = tailEnd(text, tailStart, shape);
  if (i - tailStart < shape.minTail || !boundedRight(text, i)) return -1;
  return i;
}

/**
 * One run cache per tail alphabet and dot rule. A prefix glued after `_` or `-` may start anywhere inside a long
 * run of its own alphabet (`sk-sk-sk-…`, `ghp_ghp_…`), and every one of them ends where that run ends: the run is
 * walked once, not once per prefix in it (which was quadratic in the run's length).
 */
const tailRuns = new Map<Uint8Array, [RunCache, RunCache]>();

function tailEnd(text: string, tailStart: number, shape: VendorShape): number {
  const { tail } = shape;
  let caches = tailRuns.get(tail);
  if (caches === undefined) tailRuns.set(tail, (caches = [new RunCache(), new RunCache()]));
  if (!shape.dotted) return caches[0].run(text, tailStart, (t, i) => !inTable(tail, t.charCodeAt(i)));
  // A dotted tail goes on through a single dot between two tail characters, never through a leading one.
  if (text.charCodeAt(tailStart) === DOT) return tailStart;
  return caches[1].run(text, tailStart, (t, i) => {
    const c = t.charCodeAt(i);
    return !inTable(tail, c) && !(c === DOT && inTable(tail, t.charCodeAt(i + 1)));
  });
}

// Most prefixes have a separator (`-`, `_`, `.`) after a short alphanumeric head; the scan stops at separators
// and looks the head up, instead of running an alternation of ~80 literals (every common letter starts one).
// The few without a separator (AIza, gAAAA, GR1348941) are found by a literal regex.
const SEPARATOR = /[-_.]/;
const BY_HEAD = new Map<string, VendorShape[]>();
const LITERALS = new Map<string, VendorShape>();
for (const shape of VENDOR_SHAPES) {
  const separator = shape.prefix.search(SEPARATOR);
  if (separator === -1) {
    LITERALS.set(shape.prefix, shape);
    continue;
  }
  const head = shape.prefix.slice(0, separator);
  if (!/^[A-Za-z0-9]+$/.test(head)) throw new Error(`Vendor prefix needs an alphanumeric head: ${shape.prefix}`);
  const list = BY_HEAD.get(head) ?? [];
  list.push(shape);
  list.sort((a, b) => b.prefix.length - a.prefix.length); // the longest prefix wins (`sk_live_` before `sk_`)
  BY_HEAD.set(head, list);
}
const HEAD_LENGTHS = [...new Set([...BY_HEAD.keys()].map((head) => head.length))].sort((a, b) => a - b);
const MAX_HEAD = HEAD_LENGTHS[HEAD_LENGTHS.length - 1];
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const LITERAL_TRIGGER = new RegExp([...LITERALS.keys()].map(escapeRegExp).join('|'), 'g');
const SEPARATOR_TRIGGER = /[-_.]/g;
const DOT = 0x2e;

function push(out: Finding[], text: string, start: number, end: number, shape: VendorShape): void {
  out.push({ start, end, text: () => maskToken(text.slice(start, end)), rule: vendorRule(shape), rank: VENDOR_RANK });
}

const GLUE = asciiTable(/[-_]/);

/**
 * A vendor token's left edge (issue 21): a token boundary (chars.ts boundedLeft: `.`, a blank, punctuation…), or
 * a `_` or `-` that glues it to a word before (`tool_sk-proj-…`, `x-ghp_…`, `my_ghp_…`): a key pasted onto a name
 * is still the key. Glued, its tail must look random (a letter and a digit, GLUED_TAIL_NEEDS): `load_hf_checkpoint` and
 * `from_hf_pretrained` are words of an identifier, not a key. redaction.md's token boundary refuses `_`/`-` before
 * a token; Satchel masks more here (a key never stays because of what it was glued to).
 */
function vendorStart(text: string, start: number, end: number, tailStart: number): boolean {
  if (boundedLeft(text, start)) return true;
  if (!inTable(GLUE, text.charCodeAt(start - 1))) return false;
  const seen = lastLetterAndDigit(text, tailStart, end);
  return seen.letter >= tailStart && seen.digit >= tailStart;
}

/**
 * The last letter and the last digit before `end`, looked for from `from` on. Tokens glued inside one long run
 * share its end and come left to right, so the run is read once: a later question about the same end, from further
 * on, is answered from what the first one read (the last of each is in the range exactly when it is at or after
 * `from`).
 */
const lastSeen = { from: -1, end: -1, letter: -1, digit: -1 };
function lastLetterAndDigit(text: string, from: number, end: number): { letter: number; digit: number } {
  if (lastSeen.end === end && from >= lastSeen.from) return lastSeen;
  let letter = -1;
  let digit = -1;
  for (let i = end - 1; i >= from && (letter === -1 || digit === -1); i--) {
    const c = text.charCodeAt(i);
    if (digit === -1 && inTable(DIGIT, c)) digit = i;
    else if (letter === -1 && inTable(ALNUM, c) && !inTable(DIGIT, c)) letter = i;
  }
  // Not found means none in [from, end): record that as "before from".
  Object.assign(lastSeen, { from, end, letter, digit });
  return lastSeen;
}
/** What a glued token's tail needs (see vendorStart). */
export const GLUED_TAIL_NEEDS = 'a letter and a digit';

/** The end of a vendor token whose prefix has its first separator at `at` (pushed to `out`), or -1. */
function separatedAt(text: string, at: number, out: Finding[]): number {
  const head = at - runStart(text, at, ALNUM, MAX_HEAD);
  for (const length of HEAD_LENGTHS) {
    if (length > head) break;
    const start = at - length;
    if (start > 0 && inTable(ALNUM, text.charCodeAt(start - 1)) && !boundedLeft(text, start)) continue;
    const candidates = BY_HEAD.get(text.slice(start, at));
    if (candidates === undefined) continue;
    for (const shape of candidates) {
      const end = vendorEnd(text, start, shape);
      if (end !== -1 && vendorStart(text, start, end, start + shape.prefix.length)) {
        push(out, text, start, end, shape);
        return end;
      }
    }
  }
  return -1;
}

/** Every vendor token of A1/B1, plus the dotted Discord and Zhipu shapes (found at their dots). */
export function scanVendors(text: string, out: Finding[]): void {
  // The caches hold runs of one text: this scan may be of another (B11 scans a joined copy between two scans).
  for (const [plain, dotted] of tailRuns.values()) {
    plain.reset();
    dotted.reset();
  }
  lastSeen.end = -1;
  const separators = SEPARATOR_TRIGGER;
  separators.lastIndex = 0;
  while (separators.test(text)) {
    const at = separators.lastIndex - 1;
    const end = separatedAt(text, at, out);
    if (end !== -1) {
      separators.lastIndex = end;
      continue;
    }
    if (text.charCodeAt(at) === DOT) {
      const dotted = discordAt(text, at, out);
      if (dotted === -1) zhipuAt(text, at, out);
    }
  }
  const literals = LITERAL_TRIGGER;
  literals.lastIndex = 0;
  for (let m = literals.exec(text); m !== null; m = literals.exec(text)) {
    const start = m.index;
    const shape = LITERALS.get(m[0])!;
    // Neither bounded nor glued: no token, and no need to read its tail.
    if (!boundedLeft(text, start) && !inTable(GLUE, text.charCodeAt(start - 1))) continue;
    const end = vendorEnd(text, start, shape);
    if (end === -1 || !vendorStart(text, start, end, start + shape.prefix.length)) continue;
    push(out, text, start, end, shape);
    literals.lastIndex = end;
  }
}
